import { useEffect, useId, useRef, useState } from 'react';
import { useIntl } from 'react-intl';
import { call, type ApiProblem } from '../../../api.ts';
import { problemText } from '../../../i18n/problems.ts';
import { useSession } from '../../../session.tsx';
import { LoadState } from '../../../components/LoadState.tsx';
import { actionLabel, formatDateTime, toProblem, useLoad, type AuditEvent } from './model.ts';

const AUDIT_PAGE_SIZE = 20;

/**
 * The audit events of one platform, newest first: when, what, who, and the names of the
 * changed properties (never their values). "Load more" follows the cursor. `version` changes
 * after each change made on the page, reloading from the newest event.
 */
export function AuditEvents({ platformKey, version }: { platformKey: string; version: number }) {
  const { api, me } = useSession();
  const intl = useIntl();
  const t = (id: string, values?: Record<string, string | number>) => intl.formatMessage({ id }, values);
  const headingId = useId();
  const captionId = useId();
  const first = useLoad(
    () => call(api.GET('/v1/audit-events', { params: { query: { platformKey, limit: AUDIT_PAGE_SIZE } } })),
    [api, platformKey, version],
  );
  const [more, setMore] = useState<{ items: AuditEvent[]; nextCursor: string | null } | null>(null);
  const [loadingMore, setLoadingMore] = useState(false);
  const [moreError, setMoreError] = useState<ApiProblem | null>(null);
  const statusLine = useRef<HTMLParagraphElement>(null);

  useEffect(() => {
    setMore(null);
    setMoreError(null);
  }, [first.data]);

  const items = [...(first.data?.items ?? []), ...(more?.items ?? [])];
  const nextCursor = more ? more.nextCursor : (first.data?.nextCursor ?? null);

  const loadMore = async () => {
    if (!nextCursor) return;
    setLoadingMore(true);
    setMoreError(null);
    try {
      const page = await call(api.GET('/v1/audit-events', { params: { query: { platformKey, limit: AUDIT_PAGE_SIZE, cursor: nextCursor } } }));
      setMore((previous) => ({ items: [...(previous?.items ?? []), ...page.items], nextCursor: page.nextCursor }));
      // The button goes away on the last page: keep the focus in the panel.
      if (!page.nextCursor) statusLine.current?.focus();
    } catch (failure) {
      setMoreError(toProblem(failure));
    } finally {
      setLoadingMore(false);
    }
  };

  const actorLabel = (event: AuditEvent) => {
    if (event.actor.type === 'cli') return t('platforms.audit.actor.cli');
    // `npm start` seeding its demo platforms: not a person, and not an anonymous API caller.
    if (event.actor.type === 'devstack') return t('platforms.audit.actor.devstack');
    // The gateway's own record of an end nobody asked for there (a support access's time, its session's end).
    if (event.actor.type === 'system') return t('platforms.audit.actor.system');
    // A platform's back end acting for a person (an acceptance it recorded): named, never shown as the person.
    if (event.actor.via === 'platform') return t('platforms.audit.actor.platform', { platform: event.actor.platformKey ?? '?', sub: event.actor.sub ?? event.actor.userId ?? '?' });
    if (me && event.actor.userId !== null && event.actor.userId === me.user.id) return t('platforms.audit.actor.you');
    return event.actor.sub ? t('platforms.audit.actor.user', { sub: event.actor.sub }) : t('platforms.audit.actor.api');
  };

  return (
    <section className="panel" aria-labelledby={headingId}>
      <h2 id={headingId}>{t('platforms.audit.title')}</h2>
      <LoadState loading={first.loading && !first.data} error={first.error} onRetry={() => void first.reload()} what={t('platforms.audit.what')}>
        <p className="platforms-muted" role="status" tabIndex={-1} ref={statusLine}>
          {items.length === 0 ? t('platforms.audit.none') : t(nextCursor ? 'platforms.audit.showing' : 'platforms.audit.showingAll', { count: items.length })}
        </p>
        {items.length > 0 ? (
          <div className="table-wrap platforms-table-wrap" role="region" aria-labelledby={captionId} tabIndex={0}>
            <table className="platforms-table platforms-audit-table">
              <caption id={captionId} className="visually-hidden">{t('platforms.audit.caption')}</caption>
              <thead>
                <tr>
                  <th scope="col">{t('platforms.audit.time')}</th>
                  <th scope="col">{t('platforms.audit.action')}</th>
                  <th scope="col">{t('platforms.audit.by')}</th>
                  <th scope="col">{t('platforms.audit.changed')}</th>
                </tr>
              </thead>
              <tbody>
                {items.map((event) => (
                  <tr key={event.id}>
                    <td><time dateTime={event.occurredAt}>{formatDateTime(intl, event.occurredAt)}</time></td>
                    <td>{actionLabel(intl, event.action)}{event.fieldKey ? <span className="platforms-muted">{` ${t('platforms.audit.field', { field: event.fieldKey })}`}</span> : null}</td>
                    <td className="platforms-break">{actorLabel(event)}</td>
                    <td>
                      {event.changedFields.length > 0 ? (
                        <ul className="platforms-changed">
                          {event.changedFields.map((field) => <li key={field}><code>{field}</code></li>)}
                        </ul>
                      ) : '—'}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : null}
        {moreError ? (
          <p className="field-error" role="alert">{t('platforms.audit.moreFailed', { reason: problemText(intl, moreError) })}</p>
        ) : null}
        {nextCursor ? (
          <div className="actions">
            <button type="button" className="button button-secondary" onClick={() => void loadMore()} disabled={loadingMore}>
              {loadingMore ? t('common.loading') : t('platforms.audit.loadMore')}
            </button>
          </div>
        ) : null}
      </LoadState>
    </section>
  );
}
