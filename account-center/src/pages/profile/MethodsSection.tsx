import { useCallback, useEffect, useState } from 'react';
import { ApiProblem, call } from '../../api.ts';
import { useSession } from '../../session.tsx';
import { LoadState } from '../../components/LoadState.tsx';
import { type AuthenticationMethod } from './profileModel.ts';
import { useIntl } from '../../i18n/useIntl.ts';
import { problemText } from '../../i18n/problems.ts';

const METHOD_TYPES = ['password', 'passkey', 'totp', 'otp_sms', 'otp_email', 'idp_link'];

/** A time, or a dash read as "unknown" (the provider may keep none). */
function When({ iso }: { iso: string | null }) {
  const intl = useIntl();
  const date = iso ? new Date(iso) : null;
  if (!iso || !date || Number.isNaN(date.getTime())) {
    return (
      <>
        <span aria-hidden="true">—</span>
        <span className="visually-hidden">{intl.formatMessage({ id: 'profile.methods.unknown' })}</span>
      </>
    );
  }
  return <time dateTime={iso}>{intl.formatDate(date, { dateStyle: 'medium', timeStyle: 'short' })}</time>;
}

/** The authentication methods registered at the identity provider (read only). */
export function MethodsSection() {
  const { api } = useSession();
  const intl = useIntl();
  const say = (id: string) => intl.formatMessage({ id: `profile.methods.${id}` });
  const methodName = (type: string) => (METHOD_TYPES.includes(type) ? intl.formatMessage({ id: `profile.method.${type}` }) : type);
  const [methods, setMethods] = useState<AuthenticationMethod[] | null>(null);
  const [error, setError] = useState<ApiProblem | null>(null);

  const load = useCallback(async () => {
    setError(null);
    setMethods(null);
    try {
      setMethods((await call(api.GET('/v1/account/authentication-methods'))).items);
    } catch (failure) {
      const problem = failure instanceof ApiProblem ? failure : new ApiProblem(0, null);
      setError(problem.status === 503
        ? new ApiProblem(503, problem.problem, intl.formatMessage({ id: 'profile.methods.unavailable' }))
        : problem);
    }
  }, [api, intl]);

  useEffect(() => {
    void load();
  }, [load]);

  return (
    <LoadState loading={methods === null} error={error} onRetry={() => void load()} what={say('what')}>
      {methods && methods.length === 0 ? <p>{say('none')}</p> : null}
      {methods && methods.length > 0 ? (
        <div className="table-wrap">
          <table className="profile-table">
            <caption className="visually-hidden">{say('caption')}</caption>
            <thead>
              <tr>
                <th scope="col">{say('type')}</th>
                <th scope="col">{say('name')}</th>
                <th scope="col">{say('added')}</th>
                <th scope="col">{say('lastUsed')}</th>
              </tr>
            </thead>
            <tbody>
              {methods.map((method) => (
                <tr key={method.id}>
                  <th scope="row">{methodName(method.type)}</th>
                  <td data-label={say('name')}>{method.displayName ?? <When iso={null} />}</td>
                  <td data-label={say('added')}><When iso={method.createdAt} /></td>
                  <td data-label={say('lastUsed')}><When iso={method.lastUsedAt} /></td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </LoadState>
  );
}
