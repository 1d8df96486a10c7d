import { useEffect, useId, useRef, useState } from 'react';
import { Link, useLocation, useNavigate, useParams } from 'react-router';
import { call, type ApiProblem } from '../../../api.ts';
import { useSession } from '../../../session.tsx';
import { PageTitle } from '../../../components/PageTitle.tsx';
import { LoadState } from '../../../components/LoadState.tsx';
import { Notice } from '../../../components/Notice.tsx';
import { ConfirmDialog } from '../../../components/ConfirmDialog.tsx';
import { AuditEvents } from './AuditEvents.tsx';
import { ActiveBadge } from './PlatformListPage.tsx';
import { SecretPanel } from './SecretPanel.tsx';
import { BrandingLink } from '../../../branding/BrandingLink.tsx';
import { HANDOFF_CHALLENGE_OFF_WARNING, formatDateTime, modeLabel, toProblem, useLoad, type Platform, type PlatformCredentials } from './model.ts';

/** A message handed to the detail page by the page before it (never a secret). */
export interface DetailNotice {
  notice?: string;
}

type Action = 'deactivate' | 'activate' | 'rotate';

/** Why an activation was refused, in words that say what to do (409 codes of activatePlatform). */
const ACTIVATION_REFUSALS: Record<string, string> = {
  PLATFORM_MISSING_CALLBACK_URL: 'It has no callback URL. Edit the platform to add one, then activate it.',
  PLATFORM_MISSING_RETURN_URLS: 'It has no allowed return URL. Edit the platform to add at least one, then activate it.',
  PLATFORM_MISSING_CREDENTIALS: 'It has no client credentials. Rotate the credentials to create them, then activate it.',
};

/**
 * /admin/platforms/:platformKey: every property, the actions (edit, activate or deactivate,
 * rotate the client secret, each confirmed first), the new secret once after a rotation, and
 * the platform's audit events.
 */
export function PlatformDetailPage() {
  const { platformKey = '' } = useParams();
  const { api } = useSession();
  const location = useLocation();
  const navigate = useNavigate();
  const { data: platform, error, loading, reload, setData } = useLoad(
    () => call(api.GET('/v1/platforms/{platformKey}', { params: { path: { platformKey } } })),
    [api, platformKey],
  );
  const [notice, setNotice] = useState<string | null>(() => (location.state as DetailNotice | null)?.notice ?? null);
  const [failure, setFailure] = useState<{ title: string; message: string; problem: ApiProblem } | null>(null);
  const [dialog, setDialog] = useState<Action | null>(null);
  const [busy, setBusy] = useState(false);
  const [credentials, setCredentials] = useState<PlatformCredentials | null>(null);
  const [auditVersion, setAuditVersion] = useState(0);
  const failureRef = useRef<HTMLDivElement>(null);

  // The notice was for this visit: drop it from the history entry, so a reload does not repeat it.
  useEffect(() => {
    if ((location.state as DetailNotice | null)?.notice) navigate(location.pathname, { replace: true, state: null });
  }, [location.state, location.pathname, navigate]);

  useEffect(() => {
    if (failure) failureRef.current?.focus();
  }, [failure]);

  if (!platform) {
    const notFound = error && (error.status === 404 || error.status === 400);
    return (
      <>
        <BackLink />
        <PageTitle>{notFound ? 'Platform not found' : 'Platform'}</PageTitle>
        {notFound ? (
          <div className="load-error" role="alert">
            <p>{`There is no platform with the key “${platformKey}”.`}</p>
            <p><Link to="/admin/platforms">All platforms</Link></p>
          </div>
        ) : (
          <LoadState loading={loading} error={error} onRetry={() => void reload()} what="the platform">{null}</LoadState>
        )}
      </>
    );
  }

  const act = async (action: Action) => {
    setBusy(true);
    setNotice(null);
    setFailure(null);
    const path = { params: { path: { platformKey } } };
    try {
      if (action === 'deactivate') {
        setData(await call(api.DELETE('/v1/platforms/{platformKey}', path)));
        setNotice(`${platform.displayName} is inactive: sign-ins and handoff exchanges for it are refused until it is activated again.`);
      } else if (action === 'activate') {
        setData(await call(api.POST('/v1/platforms/{platformKey}/activate', path)));
        setNotice(`${platform.displayName} is active: sign-ins and handoff exchanges for it work again.`);
      } else {
        setCredentials(await call(api.POST('/v1/platforms/{platformKey}/credentials/rotate', path)));
        void reload();
      }
      setAuditVersion((version) => version + 1);
    } catch (caught) {
      const problem = toProblem(caught);
      const title =
        action === 'activate' ? 'The platform was not activated.' : action === 'deactivate' ? 'The platform was not deactivated.' : 'The credentials were not rotated.';
      const code = problem.problem?.code ?? '';
      setFailure({ title, message: ACTIVATION_REFUSALS[code] ?? problem.message, problem });
      if (problem.needsSignIn) void reload();
    } finally {
      setBusy(false);
      setDialog(null);
    }
  };

  return (
    <>
      <BackLink />
      <PageTitle lead={platform.platformKey}>{platform.displayName}</PageTitle>
      {notice ? <Notice tone="success">{notice}</Notice> : null}
      {failure ? (
        <div className="error-summary" role="alert" tabIndex={-1} ref={failureRef}>
          <h2>{failure.title}</h2>
          <p>{failure.message}</p>
          {failure.problem.problem?.code?.startsWith('PLATFORM_MISSING_') && failure.problem.problem.code !== 'PLATFORM_MISSING_CREDENTIALS' ? (
            <p><Link to={editPath(platformKey)}>Edit the platform</Link></p>
          ) : null}
        </div>
      ) : null}

      {credentials ? (
        <SecretPanel
          title="New client secret"
          platformKey={credentials.platformKey}
          clientId={credentials.clientId}
          clientSecret={credentials.clientSecret}
        >
          <button type="button" className="button" onClick={() => setCredentials(null)}>I have stored it</button>
        </SecretPanel>
      ) : null}

      <div className="platforms-actions" role="group" aria-label="Platform actions">
        <Link className="button" to={editPath(platformKey)}>Edit</Link>
        <BrandingLink platformKey={platformKey} />
        {platform.active ? (
          <button type="button" className="button button-secondary" onClick={() => setDialog('deactivate')}>Deactivate</button>
        ) : (
          <button type="button" className="button button-secondary" onClick={() => setDialog('activate')}>Activate</button>
        )}
        <button type="button" className="button button-danger" onClick={() => setDialog('rotate')}>Rotate credentials</button>
      </div>

      <PlatformProperties platform={platform} />
      <AuditEvents platformKey={platform.platformKey} version={auditVersion} />

      <ConfirmDialog
        open={dialog === 'deactivate'}
        title={`Deactivate ${platform.displayName}?`}
        confirmLabel="Deactivate"
        danger
        busy={busy}
        onConfirm={() => void act('deactivate')}
        onCancel={() => setDialog(null)}
      >
        <p>Sign-ins for this platform stop at once, and so do its handoff exchanges: nobody can sign in to it through the gateway.</p>
        <p>The record, its credentials and its users’ onboarding data are kept. You can activate it again later.</p>
      </ConfirmDialog>
      <ConfirmDialog
        open={dialog === 'activate'}
        title={`Activate ${platform.displayName}?`}
        confirmLabel="Activate"
        busy={busy}
        onConfirm={() => void act('activate')}
        onCancel={() => setDialog(null)}
      >
        <p>Sign-ins and handoff exchanges for this platform resume: people can sign in to it through the gateway again.</p>
      </ConfirmDialog>
      <RotateDialog
        open={dialog === 'rotate'}
        platform={platform}
        busy={busy}
        onConfirm={() => void act('rotate')}
        onCancel={() => setDialog(null)}
      />
    </>
  );
}

/** Rotation breaks the platform until it has the new secret: the key must be typed to confirm. */
function RotateDialog({ open, platform, busy, onConfirm, onCancel }: { open: boolean; platform: Platform; busy: boolean; onConfirm: () => void; onCancel: () => void }) {
  const [typed, setTyped] = useState('');
  const inputId = useId();
  const warningId = useId();
  useEffect(() => {
    if (open) setTyped('');
  }, [open]);
  return (
    <ConfirmDialog
      open={open}
      title={`Rotate the client secret of ${platform.displayName}?`}
      confirmLabel="Rotate credentials"
      danger
      busy={busy}
      canConfirm={typed.trim().toUpperCase() === platform.platformKey}
      onConfirm={onConfirm}
      onCancel={onCancel}
    >
      <div className="platforms-dialog-warning" id={warningId}>
        <p><strong>The current secret stops working at once.</strong></p>
        <p>Until the platform is configured with the new secret, its handoff exchanges fail and nobody can finish signing in to it. The new secret is shown once, right after this.</p>
      </div>
      <div className="field">
        <label htmlFor={inputId}>{`Type ${platform.platformKey} to confirm`}</label>
        <input
          id={inputId}
          type="text"
          className="platforms-mono"
          value={typed}
          autoComplete="off"
          spellCheck={false}
          autoCapitalize="characters"
          aria-describedby={warningId}
          onChange={(event) => setTyped(event.target.value)}
        />
      </div>
    </ConfirmDialog>
  );
}

const editPath = (platformKey: string) => `/admin/platforms/${encodeURIComponent(platformKey)}/edit`;

function BackLink() {
  return (
    <p className="platforms-back">
      <Link to="/admin/platforms">
        <span aria-hidden="true">← </span>All platforms
      </Link>
    </p>
  );
}

/** Every property of the platform, as text (metadata as formatted JSON). */
function PlatformProperties({ platform }: { platform: Platform }) {
  const headingId = useId();
  const none = <span className="platforms-muted">Not set</span>;
  const code = (value: string | null, missing = 'Not set') => (value === null ? <span className="platforms-muted">{missing}</span> : <span className="platforms-mono">{value}</span>);
  return (
    <section className="panel" aria-labelledby={headingId}>
      <h2 id={headingId}>Settings</h2>
      <dl className="platforms-properties">
        <div><dt>Platform key</dt><dd className="platforms-mono">{platform.platformKey}</dd></div>
        <div><dt>Status</dt><dd><ActiveBadge active={platform.active} /></dd></div>
        <div><dt>Display name</dt><dd>{platform.displayName}</dd></div>
        <div className="platforms-properties-url"><dt>Callback URL</dt><dd className="platforms-break">{code(platform.callbackUrl)}</dd></div>
        <div className="platforms-properties-url"><dt>Back-channel logout URL</dt><dd className="platforms-break">{code(platform.backchannelLogoutUrl)}</dd></div>
        <div className="platforms-properties-url">
          <dt>Allowed return URLs</dt>
          <dd>
            {platform.allowedReturnUrls.length > 0 ? (
              <ul className="platforms-plain-list">
                {platform.allowedReturnUrls.map((url) => <li key={url} className="platforms-mono platforms-break">{url}</li>)}
              </ul>
            ) : none}
          </dd>
        </div>
        <div><dt>Onboarding mode</dt><dd>{modeLabel(platform.defaultOnboardingMode)}</dd></div>
        <div><dt>Central onboarding</dt><dd>{platform.centralOnboardingEnabled ? 'Enabled' : 'Disabled'}</dd></div>
        <div>
          <dt>Handoff challenge</dt>
          <dd>{platform.handoffChallengeRequired ? 'Required' : <><span className="badge badge-warning">Not required</span> <span>{HANDOFF_CHALLENGE_OFF_WARNING}</span></>}</dd>
        </div>
        <div><dt>Onboarding path</dt><dd className="platforms-break">{code(platform.platformOnboardingPath)}</dd></div>
        <div><dt>Client ID</dt><dd className="platforms-break">{code(platform.clientId, 'No credentials')}</dd></div>
        <div><dt>Requirement version</dt><dd>{platform.requirementVersion}</dd></div>
        <div><dt>Created</dt><dd><time dateTime={platform.createdAt}>{formatDateTime(platform.createdAt)}</time></dd></div>
        <div><dt>Updated</dt><dd><time dateTime={platform.updatedAt}>{formatDateTime(platform.updatedAt)}</time></dd></div>
        <div className="platforms-properties-wide">
          <dt>Metadata</dt>
          <dd><pre className="platforms-json">{JSON.stringify(platform.metadata, null, 2)}</pre></dd>
        </div>
      </dl>
    </section>
  );
}
