import { useEffect, useId, useRef, useState } from 'react';
import { Link, useLocation, useNavigate, useParams } from 'react-router';
import { useIntl } from 'react-intl';
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
import { problemText } from '../../../i18n/problems.ts';
import { formatDateTime, modeLabel, toProblem, useLoad, type Platform, type PlatformCredentials } from './model.ts';

/** A message handed to the detail page by the page before it (never a secret). */
export interface DetailNotice {
  notice?: string;
}

type Action = 'deactivate' | 'activate' | 'rotate';

/** Why an activation was refused, in words that say what to do (409 codes of activatePlatform): `platforms.refusal.<code>`. */
const ACTIVATION_REFUSALS = new Set(['PLATFORM_MISSING_CALLBACK_URL', 'PLATFORM_MISSING_RETURN_URLS', 'PLATFORM_MISSING_CREDENTIALS']);

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
  const intl = useIntl();
  const t = (id: string, values?: Record<string, string | number>) => intl.formatMessage({ id }, values);
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
        <PageTitle>{t(notFound ? 'platforms.detail.notFound' : 'platforms.detail.title')}</PageTitle>
        {notFound ? (
          <div className="load-error" role="alert">
            <p>{t('platforms.detail.noSuchKey', { key: platformKey })}</p>
            <p><Link to="/admin/platforms">{t('platforms.all')}</Link></p>
          </div>
        ) : (
          <LoadState loading={loading} error={error} onRetry={() => void reload()} what={t('platforms.detail.what')}>{null}</LoadState>
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
        setNotice(t('platforms.detail.deactivated', { name: platform.displayName }));
      } else if (action === 'activate') {
        setData(await call(api.POST('/v1/platforms/{platformKey}/activate', path)));
        setNotice(t('platforms.detail.activated', { name: platform.displayName }));
      } else {
        setCredentials(await call(api.POST('/v1/platforms/{platformKey}/credentials/rotate', path)));
        void reload();
      }
      setAuditVersion((version) => version + 1);
    } catch (caught) {
      const problem = toProblem(caught);
      const title = t(`platforms.detail.failed.${action}`);
      const code = problem.problem?.code ?? '';
      setFailure({ title, message: ACTIVATION_REFUSALS.has(code) ? t(`platforms.refusal.${code}`) : problemText(intl, problem), problem });
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
            <p><Link to={editPath(platformKey)}>{t('platforms.detail.editThePlatform')}</Link></p>
          ) : null}
        </div>
      ) : null}

      {credentials ? (
        <SecretPanel
          title={t('platforms.secret.newSecret')}
          platformKey={credentials.platformKey}
          clientId={credentials.clientId}
          clientSecret={credentials.clientSecret}
        >
          <button type="button" className="button" onClick={() => setCredentials(null)}>{t('platforms.secret.stored')}</button>
        </SecretPanel>
      ) : null}

      <div className="platforms-actions" role="group" aria-label={t('platforms.detail.actions')}>
        <Link className="button" to={editPath(platformKey)}>{t('platforms.detail.edit')}</Link>
        <BrandingLink platformKey={platformKey} />
        {platform.active ? (
          <button type="button" className="button button-secondary" onClick={() => setDialog('deactivate')}>{t('platforms.detail.deactivate')}</button>
        ) : (
          <button type="button" className="button button-secondary" onClick={() => setDialog('activate')}>{t('platforms.detail.activate')}</button>
        )}
        <button type="button" className="button button-danger" onClick={() => setDialog('rotate')}>{t('platforms.detail.rotate')}</button>
      </div>

      <PlatformProperties platform={platform} />
      <AuditEvents platformKey={platform.platformKey} version={auditVersion} />

      <ConfirmDialog
        open={dialog === 'deactivate'}
        title={t('platforms.detail.deactivateTitle', { name: platform.displayName })}
        confirmLabel={t('platforms.detail.deactivate')}
        danger
        busy={busy}
        onConfirm={() => void act('deactivate')}
        onCancel={() => setDialog(null)}
      >
        <p>{t('platforms.detail.deactivateEffect')}</p>
        <p>{t('platforms.detail.deactivateKept')}</p>
      </ConfirmDialog>
      <ConfirmDialog
        open={dialog === 'activate'}
        title={t('platforms.detail.activateTitle', { name: platform.displayName })}
        confirmLabel={t('platforms.detail.activate')}
        busy={busy}
        onConfirm={() => void act('activate')}
        onCancel={() => setDialog(null)}
      >
        <p>{t('platforms.detail.activateEffect')}</p>
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
  const intl = useIntl();
  const t = (id: string, values?: Record<string, string | number>) => intl.formatMessage({ id }, values);
  useEffect(() => {
    if (open) setTyped('');
  }, [open]);
  return (
    <ConfirmDialog
      open={open}
      title={t('platforms.detail.rotateTitle', { name: platform.displayName })}
      confirmLabel={t('platforms.detail.rotate')}
      danger
      busy={busy}
      canConfirm={typed.trim().toUpperCase() === platform.platformKey}
      onConfirm={onConfirm}
      onCancel={onCancel}
    >
      <div className="platforms-dialog-warning" id={warningId}>
        <p><strong>{t('platforms.detail.rotateWarning')}</strong></p>
        <p>{t('platforms.detail.rotateEffect')}</p>
      </div>
      <div className="field">
        <label htmlFor={inputId}>{t('platforms.detail.rotateConfirm', { key: platform.platformKey })}</label>
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
  const intl = useIntl();
  return (
    <p className="platforms-back">
      <Link to="/admin/platforms">
        <span aria-hidden="true">← </span>{intl.formatMessage({ id: 'platforms.all' })}
      </Link>
    </p>
  );
}

/** Every property of the platform, as text (metadata as formatted JSON). */
function PlatformProperties({ platform }: { platform: Platform }) {
  const headingId = useId();
  const intl = useIntl();
  const t = (id: string, values?: Record<string, string | number>) => intl.formatMessage({ id }, values);
  const none = <span className="platforms-muted">{t('platforms.detail.notSet')}</span>;
  const code = (value: string | null, missing = t('platforms.detail.notSet')) => (value === null ? <span className="platforms-muted">{missing}</span> : <span className="platforms-mono">{value}</span>);
  return (
    <section className="panel" aria-labelledby={headingId}>
      <h2 id={headingId}>{t('platforms.detail.settings')}</h2>
      <dl className="platforms-properties">
        <div><dt>{t('platforms.field.platformKey')}</dt><dd className="platforms-mono">{platform.platformKey}</dd></div>
        <div><dt>{t('platforms.list.status')}</dt><dd><ActiveBadge active={platform.active} /></dd></div>
        <div><dt>{t('platforms.field.displayName')}</dt><dd>{platform.displayName}</dd></div>
        <div className="platforms-properties-url"><dt>{t('platforms.field.callbackUrl')}</dt><dd className="platforms-break">{code(platform.callbackUrl)}</dd></div>
        <div className="platforms-properties-url"><dt>{t('platforms.field.backchannelLogoutUrl')}</dt><dd className="platforms-break">{code(platform.backchannelLogoutUrl)}</dd></div>
        <div><dt>{intl.formatMessage({ id: 'events.admin.detail.delivery' })}</dt><dd>{intl.formatMessage({ id: `events.admin.delivery.${platform.eventDelivery}` })}</dd></div>
        <div className="platforms-properties-url"><dt>{intl.formatMessage({ id: 'events.admin.detail.receiverUrl' })}</dt><dd className="platforms-break">{code(platform.eventReceiverUrl)}</dd></div>
        <div className="platforms-properties-url">
          <dt>{t('platforms.field.allowedReturnUrls')}</dt>
          <dd>
            {platform.allowedReturnUrls.length > 0 ? (
              <ul className="platforms-plain-list">
                {platform.allowedReturnUrls.map((url) => <li key={url} className="platforms-mono platforms-break">{url}</li>)}
              </ul>
            ) : none}
          </dd>
        </div>
        <div><dt>{t('platforms.field.defaultOnboardingMode')}</dt><dd>{modeLabel(intl, platform.defaultOnboardingMode)}</dd></div>
        <div><dt>{t('platforms.detail.centralOnboarding')}</dt><dd>{t(platform.centralOnboardingEnabled ? 'platforms.detail.enabled' : 'platforms.detail.disabled')}</dd></div>
        <div>
          <dt>{t('platforms.detail.handoffChallenge')}</dt>
          <dd>{platform.handoffChallengeRequired ? t('platforms.detail.required') : <><span className="badge badge-warning">{t('platforms.detail.notRequired')}</span> <span>{t('platforms.handoffChallengeOffWarning')}</span></>}</dd>
        </div>
        <div><dt>{t('platforms.field.platformOnboardingPath')}</dt><dd className="platforms-break">{code(platform.platformOnboardingPath)}</dd></div>
        <div><dt>{t('platforms.secret.clientId')}</dt><dd className="platforms-break">{code(platform.clientId, t('platforms.detail.noCredentials'))}</dd></div>
        <div><dt>{t('platforms.detail.requirementVersion')}</dt><dd>{platform.requirementVersion}</dd></div>
        <div><dt>{t('platforms.list.created')}</dt><dd><time dateTime={platform.createdAt}>{formatDateTime(intl, platform.createdAt)}</time></dd></div>
        <div><dt>{t('platforms.detail.updated')}</dt><dd><time dateTime={platform.updatedAt}>{formatDateTime(intl, platform.updatedAt)}</time></dd></div>
        <div className="platforms-properties-wide">
          <dt>{t('platforms.form.metadata')}</dt>
          <dd><pre className="platforms-json">{JSON.stringify(platform.metadata, null, 2)}</pre></dd>
        </div>
      </dl>
    </section>
  );
}
