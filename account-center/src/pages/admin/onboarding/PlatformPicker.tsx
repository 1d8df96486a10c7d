import { useCallback, useEffect, useId, useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { useIntl, type IntlShape } from 'react-intl';
import { problemText } from '../../../i18n/problems.ts';
import { ApiProblem } from '../../../api.ts';
import { LoadState } from '../../../components/LoadState.tsx';
import { PageTitle } from '../../../components/PageTitle.tsx';
import { hasPermission, useSession } from '../../../session.tsx';
import { listPlatforms, type Platform } from './gateway.ts';
import { PLATFORM_KEY_PATTERN } from './model.ts';
import { platformPath } from './paths.ts';

/**
 * /admin/onboarding: choose a platform. An administrator (platforms:admin) sees every
 * platform; anyone else the platforms they have signed in to, and a box to open any key.
 */
export function PlatformPicker() {
  const { me } = useSession();
  const isAdmin = hasPermission(me, 'platforms:admin');
  const intl = useIntl();
  return (
    <>
      <PageTitle lead={intl.formatMessage({ id: 'schema.picker.lead' })}>{intl.formatMessage({ id: 'schema.picker.title' })}</PageTitle>
      {isAdmin ? <AllPlatforms /> : <MyPlatforms />}
      <OpenByKey />
    </>
  );
}

function AllPlatforms() {
  const { api } = useSession();
  const [platforms, setPlatforms] = useState<Platform[] | null>(null);
  const [nextCursor, setNextCursor] = useState<string | null>(null);
  const [error, setError] = useState<ApiProblem | null>(null);
  const [loadingMore, setLoadingMore] = useState(false);
  const intl = useIntl();
  const t = (id: string, values?: Record<string, string | number>) => intl.formatMessage({ id }, values);

  const load = useCallback(async (cursor: string | null) => {
    setError(null);
    try {
      const page = await listPlatforms(api, cursor);
      setPlatforms((current) => (cursor && current ? [...current, ...page.items] : page.items));
      setNextCursor(page.nextCursor);
    } catch (failure) {
      setError(failure instanceof ApiProblem ? failure : new ApiProblem(0, null));
    }
  }, [api]);

  useEffect(() => {
    void load(null);
  }, [load]);

  return (
    <section className="panel" aria-labelledby="oa-platforms-title">
      <h2 id="oa-platforms-title">{t('schema.picker.platforms')}</h2>
      <LoadState loading={platforms === null} error={platforms === null ? error : null} onRetry={() => void load(null)} what={t('platforms.list.what')}>
        {platforms && platforms.length === 0 ? <p>{t('schema.picker.none')}</p> : null}
        {platforms && platforms.length > 0 ? (
          <ul className="oa-platforms">
            {platforms.map((platform) => (
              <li key={platform.platformKey} className="oa-platform">
                <Link to={platformPath(platform.platformKey)} className="oa-platform-link">{platform.displayName}</Link>
                <span className="oa-key">{platform.platformKey}</span>
                <span className="oa-platform-facts">
                  <span className="badge">{modeWords(intl, platform.defaultOnboardingMode)}</span>
                  {platform.active ? null : <span className="badge badge-muted">{t('platforms.inactive')}</span>}
                  <span className="oa-muted">{t('schema.picker.version', { version: platform.requirementVersion })}</span>
                </span>
              </li>
            ))}
          </ul>
        ) : null}
        {error && platforms ? <p className="field-error" role="alert">{t('schema.picker.moreFailed', { reason: problemText(intl, error) })}</p> : null}
        {nextCursor ? (
          <p className="oa-more">
            <button type="button" className="button button-secondary" disabled={loadingMore}
              onClick={async () => { setLoadingMore(true); await load(nextCursor); setLoadingMore(false); }}>
              {loadingMore ? t('common.loading') : t('schema.picker.more')}
            </button>
          </p>
        ) : null}
      </LoadState>
    </section>
  );
}

export function modeWords(intl: IntlShape, mode: Platform['defaultOnboardingMode']): string {
  return ['none', 'platform', 'central'].includes(mode) ? intl.formatMessage({ id: `schema.mode.${mode}` }) : mode;
}

function MyPlatforms() {
  const { me } = useSession();
  const memberships = me?.memberships ?? [];
  const intl = useIntl();
  return (
    <section className="panel" aria-labelledby="oa-mine-title">
      <h2 id="oa-mine-title">{intl.formatMessage({ id: 'schema.picker.mine' })}</h2>
      {memberships.length === 0 ? (
        <p>{intl.formatMessage({ id: 'schema.picker.mineNone' })}</p>
      ) : (
        <ul className="oa-platforms">
          {memberships.map((membership) => (
            <li key={membership.platformKey} className="oa-platform">
              <Link to={platformPath(membership.platformKey)} className="oa-platform-link">{membership.displayName}</Link>
              <span className="oa-key">{membership.platformKey}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** Any platform by its key (uppercased, as the contract's PlatformKey asks). */
function OpenByKey() {
  const navigate = useNavigate();
  const id = useId();
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | null>(null);
  const intl = useIntl();
  const t = (id: string, values?: Record<string, string | number>) => intl.formatMessage({ id }, values);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const platformKey = key.trim().toUpperCase();
    if (!PLATFORM_KEY_PATTERN.test(platformKey)) {
      setError(t('schema.picker.badKey'));
      document.getElementById(`${id}-key`)?.focus();
      return;
    }
    navigate(platformPath(platformKey));
  };
  return (
    <section className="panel" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{t('schema.picker.open')}</h2>
      <form className="oa-open" onSubmit={submit} noValidate>
        <div className={`field${error ? ' field-invalid' : ''}`}>
          <label htmlFor={`${id}-key`}>{t('platforms.field.platformKey')}</label>
          <p id={`${id}-hint`} className="field-description">{t('schema.picker.keyHint')}</p>
          {error ? <p id={`${id}-error`} className="field-error" role="alert">{error}</p> : null}
          <input id={`${id}-key`} type="text" value={key} autoComplete="off" spellCheck={false} autoCapitalize="characters"
            aria-describedby={error ? `${id}-error ${id}-hint` : `${id}-hint`} aria-invalid={error ? true : undefined}
            onChange={(event) => { setKey(event.target.value); setError(null); }} />
        </div>
        <button type="submit" className="button">{t('schema.picker.openButton')}</button>
      </form>
    </section>
  );
}
