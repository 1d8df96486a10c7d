import { useCallback, useEffect, useState } from 'react';
import { ApiProblem, call } from '../../api.ts';
import { useSession } from '../../session.tsx';
import { LoadState } from '../../components/LoadState.tsx';
import { formatDateTime, methodName, type AuthenticationMethod } from './profileModel.ts';

/** A time, or a dash read as "unknown" (the provider may keep none). */
function When({ iso }: { iso: string | null }) {
  if (!iso) {
    return (
      <>
        <span aria-hidden="true">—</span>
        <span className="visually-hidden">Unknown</span>
      </>
    );
  }
  return <time dateTime={iso}>{formatDateTime(iso)}</time>;
}

/** The authentication methods registered at the identity provider (read only). */
export function MethodsSection() {
  const { api } = useSession();
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
        ? new ApiProblem(503, problem.problem, 'Your sign-in provider cannot be reached right now.')
        : problem);
    }
  }, [api]);

  useEffect(() => {
    void load();
  }, [load]);

  return (
    <LoadState loading={methods === null} error={error} onRetry={() => void load()} what="your sign-in methods">
      {methods && methods.length === 0 ? <p>Your sign-in provider lists no sign-in methods for you.</p> : null}
      {methods && methods.length > 0 ? (
        <div className="table-wrap">
          <table className="profile-table">
            <caption className="visually-hidden">Your sign-in methods</caption>
            <thead>
              <tr>
                <th scope="col">Type</th>
                <th scope="col">Name</th>
                <th scope="col">Added</th>
                <th scope="col">Last used</th>
              </tr>
            </thead>
            <tbody>
              {methods.map((method) => (
                <tr key={method.id}>
                  <th scope="row">{methodName(method.type)}</th>
                  <td data-label="Name">{method.displayName ?? <When iso={null} />}</td>
                  <td data-label="Added"><When iso={method.createdAt} /></td>
                  <td data-label="Last used"><When iso={method.lastUsedAt} /></td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </LoadState>
  );
}
