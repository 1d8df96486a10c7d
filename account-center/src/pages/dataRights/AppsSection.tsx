import { useId, useState } from 'react';
import { useIntl } from 'react-intl';
import { call, problemOf, type Schemas } from '../../api.ts';
import { useGatewayRead } from '../../components/useGatewayRead.ts';
import { useSession } from '../../session.tsx';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { LoadState } from '../../components/LoadState.tsx';
import { Notice } from '../../components/Notice.tsx';

type App = Schemas['AppWithMyData'];


/**
 * "Apps with my data": each platform the person has used (GET /v1/account/apps), when they
 * last signed in there, what it receives, and "Leave this app" after a confirmation
 * (DELETE /v1/account/apps/{platformKey}).
 */
export function AppsSection() {
  const { api, reload } = useSession();
  const { value: apps, error, load } = useGatewayRead(async () => (await call(api.GET('/v1/account/apps'))).items, [api]);
  const intl = useIntl();
  const [leaving, setLeaving] = useState<App | null>(null);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<{ tone: 'success' | 'warning'; text: string } | null>(null);


  async function leave(app: App) {
    setBusy(true);
    setMessage(null);
    try {
      await call(api.DELETE('/v1/account/apps/{platformKey}', { params: { path: { platformKey: app.platformKey } } }));
      setMessage({ tone: 'success', text: intl.formatMessage({ id: 'dataRights.apps.left' }, { app: app.displayName }) });
      await Promise.all([load(), reload()]);
    } catch (failure) {
      setMessage({ tone: 'warning', text: intl.formatMessage({ id: 'dataRights.apps.leaveRefused' }, { app: app.displayName, reason: problemOf(failure).message }) });
    } finally {
      setBusy(false);
      setLeaving(null);
    }
  }

  return (
    <section className="panel" aria-labelledby="data-apps-heading">
      <h2 id="data-apps-heading">{intl.formatMessage({ id: 'dataRights.apps.heading' })}</h2>
      <p>{intl.formatMessage({ id: 'dataRights.apps.intro' })}</p>
      <div aria-live="polite">{message ? <Notice tone={message.tone}><p>{message.text}</p></Notice> : null}</div>
      <LoadState loading={apps === null && error === null} error={error} onRetry={() => void load()} what={intl.formatMessage({ id: 'dataRights.apps.loadWhat' })}>
        {apps && apps.length === 0 ? <p>{intl.formatMessage({ id: 'dataRights.apps.none' })}</p> : null}
        <ul className="data-rights-apps" aria-label={intl.formatMessage({ id: 'dataRights.apps.listLabel' })}>
          {(apps ?? []).map((app) => (
            <AppCard key={app.platformKey} app={app} busy={busy} onLeave={() => setLeaving(app)} />
          ))}
        </ul>
      </LoadState>
      <ConfirmDialog
        open={leaving !== null}
        title={intl.formatMessage({ id: 'dataRights.apps.confirmTitle' }, { app: leaving?.displayName ?? '' })}
        confirmLabel={intl.formatMessage({ id: 'dataRights.apps.confirm' }, { app: leaving?.displayName ?? '' })}
        danger
        busy={busy}
        onConfirm={() => leaving && void leave(leaving)}
        onCancel={() => setLeaving(null)}
      >
        <p>{intl.formatMessage({ id: 'dataRights.apps.confirmBody' }, { app: leaving?.displayName ?? '' })}</p>
      </ConfirmDialog>
    </section>
  );
}

function AppCard({ app, busy, onLeave }: { app: App; busy: boolean; onLeave: () => void }) {
  const intl = useIntl();
  const headingId = useId();
  const when = (iso: string) => <time dateTime={iso}>{intl.formatDate(new Date(iso), { dateStyle: 'medium', timeStyle: 'short' })}</time>;
  return (
    <li className="card data-rights-app" aria-labelledby={headingId}>
      <h3 id={headingId}>{app.displayName}</h3>
      {!app.active ? <p>{intl.formatMessage({ id: 'dataRights.apps.inactive' })}</p> : null}
      <dl className="data-rights-facts">
        <div><dt>{intl.formatMessage({ id: 'dataRights.apps.lastSignIn' })}</dt><dd>{when(app.lastSignedInAt)}</dd></div>
        <div><dt>{intl.formatMessage({ id: 'dataRights.apps.firstUsed' })}</dt><dd>{when(app.firstUsedAt)}</dd></div>
        <div>
          <dt>{intl.formatMessage({ id: 'dataRights.apps.onboarding' })}</dt>
          <dd>{intl.formatMessage({ id: app.onboardingCompleted ? 'dataRights.apps.onboardingDone' : 'dataRights.apps.onboardingOpen' })}</dd>
        </div>
      </dl>
      <h4>{intl.formatMessage({ id: 'dataRights.apps.receives' })}</h4>
      <ul className="data-rights-receives">
        {app.identity.map((item) => <li key={item}>{intl.formatMessage({ id: `dataRights.apps.identity.${item}` })}</li>)}
        {app.fields.map((field) => (
          <li key={field.key}>
            {intl.formatMessage({ id: fieldSourceKey(field) }, { label: field.label })}
          </li>
        ))}
      </ul>
      <div className="actions">
        <button type="button" className="button button-danger" disabled={busy} onClick={onLeave}
          aria-label={intl.formatMessage({ id: 'dataRights.apps.leaveLabel' }, { app: app.displayName })}>
          {intl.formatMessage({ id: 'dataRights.apps.leave' })}
        </button>
      </div>
    </li>
  );
}

/**
 * Where a field's value comes from: the profile (`shared`), the profile only once the person
 * said yes (`ask`), or answers given to this app alone (`own`, and custom fields).
 */
function fieldSourceKey(field: { source: string; sharing: string | null }): string {
  if (field.source !== 'PROFILE_FIELD') return 'dataRights.apps.field.custom';
  if (field.sharing === 'ask') return 'dataRights.apps.field.asked';
  if (field.sharing === 'own') return 'dataRights.apps.field.own';
  return 'dataRights.apps.field.profile';
}
