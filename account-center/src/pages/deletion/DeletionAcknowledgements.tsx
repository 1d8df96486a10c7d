import { useCallback, useEffect, useState } from 'react';
import { FormattedMessage, useIntl } from 'react-intl';
import { ApiProblem, call, type Schemas } from '../../api.ts';
import { useSession } from '../../session.tsx';

type DeletionStatus = Schemas['AccountDeletionStatus'];
type State = { kind: 'loading' } | { kind: 'unavailable' } | { kind: 'failed'; message: string } | { kind: 'ready'; status: DeletionStatus };

/**
 * After a deletion, during the retention period: which platforms took the deletion event
 * (GET /v1/account/deletion, authenticated by the receipt cookie the deletion set in this
 * browser). Shown under the "account deleted" notice and at /account-deleted.
 */
export function DeletionAcknowledgements() {
  const { api } = useSession();
  const intl = useIntl();
  const [state, setState] = useState<State>({ kind: 'loading' });

  const load = useCallback(async () => {
    setState({ kind: 'loading' });
    try {
      setState({ kind: 'ready', status: await call(api.GET('/v1/account/deletion')) });
    } catch (failure) {
      const problem = failure instanceof ApiProblem ? failure : new ApiProblem(0, null);
      setState(problem.status === 404 ? { kind: 'unavailable' } : { kind: 'failed', message: problem.message });
    }
  }, [api]);
  useEffect(() => {
    void load();
  }, [load]);

  return (
    <section className="deletion-acknowledgements" aria-labelledby="deletion-acknowledgements-title">
      <h2 id="deletion-acknowledgements-title">{intl.formatMessage({ id: 'events.deletion.title' })}</h2>
      {state.kind === 'loading' && <p role="status">{intl.formatMessage({ id: 'events.deletion.loading' })}</p>}
      {state.kind === 'unavailable' && <p>{intl.formatMessage({ id: 'events.deletion.unavailable' })}</p>}
      {state.kind === 'failed' && (
        <div role="alert">
          <p>{intl.formatMessage({ id: 'events.deletion.failed' })} {state.message}</p>
        </div>
      )}
      {state.kind === 'ready' && (
        <>
          <p><FormattedMessage id="events.deletion.intro" values={{ eraseAfter: new Date(state.status.eraseAfter) }} /></p>
          {state.status.platforms.length === 0 ? (
            <p>{intl.formatMessage({ id: 'events.deletion.none' })}</p>
          ) : (
            <table>
              <thead>
                <tr>
                  <th scope="col">{intl.formatMessage({ id: 'events.deletion.platform' })}</th>
                  <th scope="col">{intl.formatMessage({ id: 'events.deletion.status' })}</th>
                </tr>
              </thead>
              <tbody>
                {state.status.platforms.map((platform) => (
                  <tr key={platform.platformKey}>
                    <th scope="row">{platform.displayName}</th>
                    <td>
                      {platform.status === 'delivered' && platform.acknowledgedAt
                        ? intl.formatMessage({ id: 'events.deletion.status.delivered' }, { when: new Date(platform.acknowledgedAt) })
                        : intl.formatMessage({ id: platform.status === 'failed' ? 'events.deletion.status.failed' : 'events.deletion.status.pending' })}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <p>
            {intl.formatMessage({ id: 'events.deletion.revisit' })} <a href="/account-deleted">/account-deleted</a>
          </p>
        </>
      )}
      {state.kind !== 'loading' && (
        <p><button type="button" className="button" onClick={() => void load()}>{intl.formatMessage({ id: 'events.deletion.refresh' })}</button></p>
      )}
    </section>
  );
}
