import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiProblem } from '../../../api.ts';
import { hasPermission, useSession } from '../../../session.tsx';
import { getPlatform, listFields, type FieldList, type Platform } from './gateway.ts';

/** A platform's field definitions (with the archived ones when asked), reloadable; the last request wins. */
export function useFieldList(platformKey: string, includeArchived: boolean) {
  const { api } = useSession();
  const [list, setList] = useState<FieldList | null>(null);
  const [error, setError] = useState<ApiProblem | null>(null);
  const latest = useRef(0);

  const reload = useCallback(async (): Promise<FieldList | null> => {
    const request = ++latest.current;
    setError(null);
    try {
      const answer = await listFields(api, platformKey, includeArchived);
      if (request === latest.current) setList(answer);
      return answer;
    } catch (failure) {
      if (request === latest.current) setError(failure instanceof ApiProblem ? failure : new ApiProblem(0, null));
      return null;
    }
  }, [api, platformKey, includeArchived]);

  useEffect(() => {
    void reload();
  }, [reload]);

  return { list, error, reload };
}

/**
 * What the page can say about the platform besides its key: its name (from the caller's
 * memberships, or for an administrator from the registry) and, for an administrator, its
 * onboarding mode. Best effort: the schema works without it.
 */
export function usePlatformFacts(platformKey: string): { displayName: string | null; platform: Platform | null } {
  const { api, me } = useSession();
  const isAdmin = hasPermission(me, 'platforms:admin');
  const [platform, setPlatform] = useState<Platform | null>(null);
  useEffect(() => {
    if (!isAdmin) return;
    let current = true;
    getPlatform(api, platformKey).then((answer) => { if (current) setPlatform(answer); }, () => undefined);
    return () => { current = false; };
  }, [api, platformKey, isAdmin]);
  const membership = me?.memberships.find((candidate) => candidate.platformKey === platformKey);
  return { displayName: platform?.displayName ?? membership?.displayName ?? null, platform };
}
