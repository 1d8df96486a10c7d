import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { useIntl } from 'react-intl';
import { call } from '../../../api.ts';
import { useSession } from '../../../session.tsx';
import { PageTitle } from '../../../components/PageTitle.tsx';
import { LoadState } from '../../../components/LoadState.tsx';
import { formatDate, modeLabel, SEARCH_MAX_LENGTH, useLoad } from './model.ts';

export type StatusFilter = 'all' | 'active' | 'inactive';
/** The registry's default page size, sent explicitly so the row numbers are right. */
const PAGE_SIZE = 50;
/** The filter's options, in this order; their words are `platforms.list.status.<value>`. */
const STATUS_OPTIONS: StatusFilter[] = ['active', 'inactive', 'all'];

function statusOf(raw: string | null): StatusFilter {
  return raw === 'active' || raw === 'inactive' ? raw : 'all';
}

/**
 * /admin/platforms: the registry, searched on the server (key or name), filtered by status,
 * paged with the registry's cursor. The search and the filter are in the URL (so Back from a
 * platform returns to them); the pages are a stack of cursors, started again on a new search.
 */
export function PlatformListPage() {
  const [params, setParams] = useSearchParams();
  const intl = useIntl();
  const t = (id: string, values?: Record<string, string | number>) => intl.formatMessage({ id }, values);
  const search = (params.get('q') ?? '').trim().slice(0, SEARCH_MAX_LENGTH);
  const status = statusOf(params.get('status'));
  const [draft, setDraft] = useState(search);
  const searchId = useId();
  const statusId = useId();

  // Back and forward change the URL: the box follows.
  useEffect(() => setDraft(search), [search]);

  const apply = (next: { q?: string; status?: StatusFilter }) => {
    const q = (next.q ?? search).trim().slice(0, SEARCH_MAX_LENGTH);
    const s = next.status ?? status;
    const query = new URLSearchParams();
    if (q) query.set('q', q);
    if (s !== 'all') query.set('status', s);
    setParams(query);
  };
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    apply({ q: draft });
  };

  return (
    <>
      <PageTitle lead={t('platforms.list.lead')}>{t('platforms.list.title')}</PageTitle>
      <div className="platforms-toolbar">
        <form role="search" aria-label={t('platforms.list.title')} className="platforms-search" onSubmit={onSubmit}>
          <div className="field platforms-search-box">
            <label htmlFor={searchId}>{t('platforms.list.searchLabel')}</label>
            <div className="platforms-search-row">
              <input
                id={searchId}
                type="search"
                name="q"
                value={draft}
                maxLength={SEARCH_MAX_LENGTH}
                autoComplete="off"
                spellCheck={false}
                onChange={(event) => setDraft(event.target.value)}
              />
              <button type="submit" className="button">{t('platforms.list.search')}</button>
            </div>
          </div>
          <div className="field platforms-status-filter">
            <label htmlFor={statusId}>{t('platforms.list.status')}</label>
            <select id={statusId} name="status" value={status} onChange={(event) => apply({ q: draft, status: event.target.value as StatusFilter })}>
              {STATUS_OPTIONS.map((option) => <option key={option} value={option}>{t(`platforms.list.status.${option}`)}</option>)}
            </select>
          </div>
        </form>
        <Link className="button platforms-new" to="/admin/platforms/new">{t('platforms.create.title')}</Link>
      </div>
      {search ? (
        <p className="platforms-filter-note">
          {t('platforms.list.showingSearch', { search })}{' '}
          <button type="button" className="button-link" onClick={() => apply({ q: '' })}>{t('platforms.list.clearSearch')}</button>
        </p>
      ) : null}
      <PlatformResults key={`${status}|${search}`} search={search} status={status} />
    </>
  );
}

/** One search's pages. Remounted for every new search or filter, so paging starts again. */
function PlatformResults({ search, status }: { search: string; status: StatusFilter }) {
  const { api } = useSession();
  const intl = useIntl();
  const t = (id: string, values?: Record<string, string | number>) => intl.formatMessage({ id }, values);
  // One entry per page seen: the cursor that opens it (page 1 has none) and the number of its
  // first platform. Previous pops; Next pushes the answer's nextCursor.
  const [pages, setPages] = useState<{ cursor: string | undefined; first: number }[]>([{ cursor: undefined, first: 1 }]);
  const { cursor, first } = pages.at(-1)!;
  const page = pages.length;
  const captionId = useId();
  const tableCaptionId = useId();
  const statusLine = useRef<HTMLParagraphElement>(null);

  const { data, error, loading, reload } = useLoad(
    () =>
      call(
        api.GET('/v1/platforms', {
          params: {
            query: {
              limit: PAGE_SIZE,
              ...(cursor ? { cursor } : {}),
              ...(search ? { search } : {}),
              ...(status === 'all' ? {} : { active: status === 'active' }),
            },
          },
        }),
      ),
    [api, cursor, search, status],
  );

  const items = data?.items ?? [];
  const summary = loading
    ? ''
    : items.length === 0
      ? page > 1
        ? t('platforms.list.noMore')
        : search
          ? t('platforms.list.noMatch', { search, status })
          : t('platforms.list.noneRegistered', { status })
      : t(data?.nextCursor ? 'platforms.list.pageSummary' : 'platforms.list.lastPageSummary', { page, first, last: first + items.length - 1 });

  const go = (next: { cursor: string | undefined; first: number }[]) => {
    setPages(next);
    statusLine.current?.focus();
  };

  return (
    <section aria-labelledby={captionId} className="platforms-results">
      <h2 id={captionId} className="visually-hidden">{t('platforms.list.registered')}</h2>
      <p className="platforms-result-status" role="status" tabIndex={-1} ref={statusLine}>{summary}</p>
      <LoadState loading={loading && !data} error={error} onRetry={() => void reload()} what={t('platforms.list.what')}>
        {items.length > 0 ? (
          // Focusable, so the table can be scrolled sideways with the keyboard should it ever be
          // wider than the screen (on a phone each row is a card: platforms.css).
          <div className={`table-wrap platforms-table-wrap${loading ? ' platforms-stale' : ''}`} aria-busy={loading} role="region" aria-labelledby={tableCaptionId} tabIndex={0}>
            <table className="platforms-table">
              <caption id={tableCaptionId} className="visually-hidden">{t('platforms.list.caption', { page })}</caption>
              <thead>
                <tr>
                  <th scope="col">{t('platforms.list.key')}</th>
                  <th scope="col">{t('platforms.list.name')}</th>
                  <th scope="col">{t('platforms.list.mode')}</th>
                  <th scope="col">{t('platforms.list.status')}</th>
                  <th scope="col">{t('platforms.list.created')}</th>
                </tr>
              </thead>
              <tbody>
                {items.map((platform) => (
                  <tr key={platform.platformKey}>
                    <td data-label={t('platforms.list.key')}>
                      <Link className="platforms-mono platforms-key-link" to={`/admin/platforms/${encodeURIComponent(platform.platformKey)}`}>
                        {platform.platformKey}
                      </Link>
                    </td>
                    <td data-label={t('platforms.list.name')}>{platform.displayName}</td>
                    <td data-label={t('platforms.list.mode')}>{modeLabel(intl, platform.defaultOnboardingMode)}</td>
                    <td data-label={t('platforms.list.status')}><ActiveBadge active={platform.active} /></td>
                    <td data-label={t('platforms.list.created')}><time dateTime={platform.createdAt}>{formatDate(intl, platform.createdAt)}</time></td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : null}
      </LoadState>
      {page > 1 || data?.nextCursor ? (
        <nav className="platforms-pager" aria-label={t('platforms.list.pages')}>
          <button type="button" className="button button-secondary" disabled={page <= 1 || loading} onClick={() => go(pages.slice(0, -1))}>
            {t('platforms.list.previous')}
          </button>
          <span className="platforms-page-number">{t('platforms.list.page', { page })}</span>
          <button
            type="button"
            className="button button-secondary"
            disabled={!data?.nextCursor || loading}
            onClick={() => data?.nextCursor && go([...pages, { cursor: data.nextCursor, first: first + items.length }])}
          >
            {t('platforms.list.next')}
          </button>
        </nav>
      ) : null}
    </section>
  );
}

export function ActiveBadge({ active }: { active: boolean }) {
  const intl = useIntl();
  return active ? (
    <span className="badge badge-success">{intl.formatMessage({ id: 'platforms.active' })}</span>
  ) : (
    <span className="badge badge-muted">{intl.formatMessage({ id: 'platforms.inactive' })}</span>
  );
}
