import { useCallback, useEffect, useId, useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
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
  return (
    <>
      <PageTitle lead="What each platform asks its users after sign-in. Choose a platform to see or change its form.">Onboarding forms</PageTitle>
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
      <h2 id="oa-platforms-title">Platforms</h2>
      <LoadState loading={platforms === null} error={platforms === null ? error : null} onRetry={() => void load(null)} what="the platforms">
        {platforms && platforms.length === 0 ? <p>No platform is registered yet.</p> : null}
        {platforms && platforms.length > 0 ? (
          <ul className="oa-platforms">
            {platforms.map((platform) => (
              <li key={platform.platformKey} className="oa-platform">
                <Link to={platformPath(platform.platformKey)} className="oa-platform-link">{platform.displayName}</Link>
                <span className="oa-key">{platform.platformKey}</span>
                <span className="oa-platform-facts">
                  <span className="badge">{modeWords(platform.defaultOnboardingMode)}</span>
                  {platform.active ? null : <span className="badge badge-muted">Inactive</span>}
                  <span className="oa-muted">{`Requirement version ${platform.requirementVersion}`}</span>
                </span>
              </li>
            ))}
          </ul>
        ) : null}
        {error && platforms ? <p className="field-error" role="alert">{`More platforms could not be loaded. ${error.message}`}</p> : null}
        {nextCursor ? (
          <p className="oa-more">
            <button type="button" className="button button-secondary" disabled={loadingMore}
              onClick={async () => { setLoadingMore(true); await load(nextCursor); setLoadingMore(false); }}>
              {loadingMore ? 'Loading…' : 'Show more platforms'}
            </button>
          </p>
        ) : null}
      </LoadState>
    </section>
  );
}

export function modeWords(mode: Platform['defaultOnboardingMode']): string {
  return { none: 'No onboarding', platform: 'Onboarding by the platform', central: 'Central onboarding' }[mode] ?? mode;
}

function MyPlatforms() {
  const { me } = useSession();
  const memberships = me?.memberships ?? [];
  return (
    <section className="panel" aria-labelledby="oa-mine-title">
      <h2 id="oa-mine-title">Your platforms</h2>
      {memberships.length === 0 ? (
        <p>You have not signed in to any platform yet. Open a platform by its key below.</p>
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
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const platformKey = key.trim().toUpperCase();
    if (!PLATFORM_KEY_PATTERN.test(platformKey)) {
      setError('Enter a platform key: a letter, then 1 to 63 letters, digits or underscores (like DEMO_PLATFORM).');
      document.getElementById(`${id}-key`)?.focus();
      return;
    }
    navigate(platformPath(platformKey));
  };
  return (
    <section className="panel" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Open a platform by its key</h2>
      <form className="oa-open" onSubmit={submit} noValidate>
        <div className={`field${error ? ' field-invalid' : ''}`}>
          <label htmlFor={`${id}-key`}>Platform key</label>
          <p id={`${id}-hint`} className="field-description">Like DEMO_PLATFORM; lower-case letters are turned into capitals.</p>
          {error ? <p id={`${id}-error`} className="field-error" role="alert">{error}</p> : null}
          <input id={`${id}-key`} type="text" value={key} autoComplete="off" spellCheck={false} autoCapitalize="characters"
            aria-describedby={error ? `${id}-error ${id}-hint` : `${id}-hint`} aria-invalid={error ? true : undefined}
            onChange={(event) => { setKey(event.target.value); setError(null); }} />
        </div>
        <button type="submit" className="button">Open</button>
      </form>
    </section>
  );
}
