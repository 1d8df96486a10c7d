import { useCallback, useEffect, useState, type DependencyList } from 'react';
import { problemOf, type ApiProblem } from '../api.ts';

/**
 * A page's read of the gateway, made when the page opens and again on `load()` (after a change,
 * or "Try again"): the last answer (`null` until the first), and the failure of the last read.
 * `deps` are what the read depends on (as for useCallback).
 */
export function useGatewayRead<T>(read: () => Promise<T>, deps: DependencyList): { value: T | null; error: ApiProblem | null; load: () => Promise<void> } {
  const [value, setValue] = useState<T | null>(null);
  const [error, setError] = useState<ApiProblem | null>(null);
  // eslint-disable-next-line react-hooks/exhaustive-deps -- the caller names the read's dependencies
  const load = useCallback(async () => {
    setError(null);
    try {
      setValue(await read());
    } catch (failure) {
      setError(problemOf(failure));
    }
  }, deps);
  useEffect(() => {
    void load();
  }, [load]);
  return { value, error, load };
}
