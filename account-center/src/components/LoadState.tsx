import type { ReactNode } from 'react';
import type { ApiProblem } from '../api.ts';
import { problemText } from '../i18n/problems.ts';
import { useIntl } from '../i18n/useIntl.ts';

/** Loading, or a failure with a retry action, or the content. */
export function LoadState({ loading, error, onRetry, what, children }: {
  loading: boolean;
  error: ApiProblem | null;
  onRetry: () => void;
  /** What was being loaded, for the messages ("your profile"). */
  what: string;
  children: ReactNode;
}) {
  const intl = useIntl();
  if (error) {
    return (
      <div className="load-error" role="alert">
        <p><strong>{intl.formatMessage({ id: 'common.loadFailed' }, { what })}</strong> {problemText(intl, error)}</p>
        <button type="button" className="button" onClick={onRetry}>{intl.formatMessage({ id: 'common.tryAgain' })}</button>
      </div>
    );
  }
  if (loading) return <p className="loading" role="status">{intl.formatMessage({ id: 'common.loadingWhat' }, { what })}</p>;
  return <>{children}</>;
}
