import type { ReactNode } from 'react';
import type { ApiProblem } from '../api.ts';

/** Loading, or a failure with a retry action, or the content. */
export function LoadState({ loading, error, onRetry, what, children }: {
  loading: boolean;
  error: ApiProblem | null;
  onRetry: () => void;
  /** What was being loaded, for the messages ("your profile"). */
  what: string;
  children: ReactNode;
}) {
  if (error) {
    return (
      <div className="load-error" role="alert">
        <p><strong>{`We could not load ${what}.`}</strong> {error.message}</p>
        <button type="button" className="button" onClick={onRetry}>Try again</button>
      </div>
    );
  }
  if (loading) return <p className="loading" role="status">{`Loading ${what}…`}</p>;
  return <>{children}</>;
}
