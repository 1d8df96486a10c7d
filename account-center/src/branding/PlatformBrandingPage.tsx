import { useId, useState, type FormEvent } from 'react';
import { Link, useParams } from 'react-router';
import { useIntl } from 'react-intl';
import { call, type ApiProblem } from '../api.ts';
import { gatewayBaseUrl } from '../config.ts';
import { useSession } from '../session.tsx';
import { PageTitle } from '../components/PageTitle.tsx';
import { LoadState } from '../components/LoadState.tsx';
import { Notice } from '../components/Notice.tsx';
import { ConfirmDialog } from '../components/ConfirmDialog.tsx';
import { toProblem, useLoad } from '../pages/admin/platforms/model.ts';
import { PlatformBrandFrame } from './PlatformBrandFrame.tsx';
import { brandLook, type PlatformBranding } from './platformBrand.ts';
import { BrandingColorField, BrandingNamesField, namesErrors, type NameRow } from './BrandingFields.tsx';
import './branding.css';

/**
 * /admin/platforms/:platformKey/branding: the platform's colour, names per language and logo,
 * with a live preview that renders the onboarding page's own frame (PlatformBrandFrame) with the
 * values as typed. The gateway decides: its contrast check, language tag rules and image checks.
 */
export function PlatformBrandingPage() {
  const { platformKey = '' } = useParams();
  const { api } = useSession();
  const intl = useIntl();
  const t = (id: string, values?: Record<string, string | number>) => intl.formatMessage({ id }, values);
  const { data, error, loading, reload, setData } = useLoad(
    () => call(api.GET('/v1/platforms/{platformKey}/branding', { params: { path: { platformKey } } })),
    [api, platformKey],
  );
  return (
    <>
      <p><Link to={`/admin/platforms/${encodeURIComponent(platformKey)}`}>{t('branding.back', { platform: data?.displayName ?? platformKey })}</Link></p>
      {data ? (
        <BrandingEditor key={data.platformKey} branding={data} onChange={setData} />
      ) : error && (error.status === 404 || error.status === 400) ? (
        <>
          <PageTitle>{t('branding.title', { platform: platformKey })}</PageTitle>
          <div className="load-error" role="alert"><p>{t('branding.notFound', { platformKey })}</p></div>
        </>
      ) : (
        <>
          <PageTitle>{t('branding.title', { platform: platformKey })}</PageTitle>
          <LoadState loading={loading} error={error} onRetry={() => void reload()} what={t('branding.load')}>{null}</LoadState>
        </>
      )}
    </>
  );
}

function BrandingEditor({ branding, onChange }: { branding: PlatformBranding; onChange: (branding: PlatformBranding) => void }) {
  const { api, config } = useSession();
  const intl = useIntl();
  const t = (id: string, values?: Record<string, string | number>) => intl.formatMessage({ id }, values);
  const path = { params: { path: { platformKey: branding.platformKey } } };
  const [color, setColor] = useState(branding.primaryColor ?? '');
  const [names, setNames] = useState<NameRow[]>(() => Object.entries(branding.displayNames).map(([language, name], index) => ({ id: index, language, name })));
  const [notice, setNotice] = useState<string | null>(null);
  const [failure, setFailure] = useState<{ title: string; problem: ApiProblem } | null>(null);
  const [busy, setBusy] = useState(false);
  const [showErrors, setShowErrors] = useState(false);
  const [confirmClear, setConfirmClear] = useState(false);
  const [file, setFile] = useState<File | null>(null);
  const logoInput = useId();

  const colorValid = color === '' || /^#[0-9a-fA-F]{6}$/.test(color);
  const rowErrors = namesErrors(names);
  const serverErrors = failure?.problem.fieldErrors() ?? new Map<string, string>();

  const rowsOf = (saved: PlatformBranding): NameRow[] => Object.entries(saved.displayNames).map(([language, name], index) => ({ id: index, language, name }));
  /** Runs a change; `resetFields`: the form shows what was stored (after a save or a clear; a logo change keeps unsaved edits). */
  const act = async (title: string, done: string, request: () => Promise<PlatformBranding>, resetFields = false) => {
    setBusy(true);
    setNotice(null);
    setFailure(null);
    try {
      const next = await request();
      onChange(next);
      if (resetFields) {
        setColor(next.primaryColor ?? '');
        setNames(rowsOf(next));
        setShowErrors(false);
      }
      setNotice(done);
      return true;
    } catch (problem) {
      setFailure({ title, problem: toProblem(problem) });
      return false;
    } finally {
      setBusy(false);
    }
  };

  const save = async (event: FormEvent) => {
    event.preventDefault();
    setShowErrors(true);
    if (!colorValid || rowErrors.size > 0) return;
    const body = { primaryColor: color === '' ? null : color, displayNames: Object.fromEntries(names.map((row) => [row.language.trim(), row.name])) };
    await act(t('branding.saveFailed'), t('branding.saved'), () => call(api.PUT('/v1/platforms/{platformKey}/branding', { ...path, body })), true);
  };
  const upload = async (event: FormEvent) => {
    event.preventDefault();
    if (!file) {
      setFailure({ title: t('branding.logo.failed'), problem: toProblem(new Error(t('branding.logo.chooseFile'))) });
      return;
    }
    const request = api.PUT('/v1/platforms/{platformKey}/branding/logo', {
      ...path,
      // The image's own bytes and type: the gateway checks and re-encodes them.
      body: file as unknown as string,
      bodySerializer: (body: unknown) => body as BodyInit,
      headers: { 'Content-Type': file.type || 'application/octet-stream' },
    });
    if (await act(t('branding.logo.failed'), t('branding.logo.uploaded'), () => call(request))) setFile(null);
  };

  // The preview: the onboarding page's frame with the values as typed (a colour only once it is well formed).
  const draft: PlatformBranding = {
    ...branding,
    primaryColor: colorValid && color !== '' ? color.toLowerCase() : null,
    displayNames: Object.fromEntries(names.filter((row) => row.language.trim() && row.name.trim()).map((row) => [row.language.trim(), row.name])),
  };
  const look = brandLook(draft, intl.locale, new URL(gatewayBaseUrl(config), window.location.href).origin);

  return (
    <>
      <PageTitle lead={t('branding.lead', { platform: branding.displayName })}>{t('branding.title', { platform: branding.displayName })}</PageTitle>
      {notice ? <Notice tone="success" title={notice} /> : null}
      {failure ? (
        <div className="load-error" role="alert">
          <p><strong>{failure.title}</strong></p>
          <p>{failure.problem.message}</p>
        </div>
      ) : null}
      <div className="branding-editor">
        <div>
          <form className="panel" onSubmit={(event) => void save(event)} noValidate>
            <BrandingColorField value={color} onChange={setColor} error={showErrors && !colorValid ? t('branding.color.malformed') : (serverErrors.get('primaryColor') ?? null)} />
            <BrandingNamesField rows={names} onChange={setNames} defaultName={branding.displayName} errors={showErrors ? rowErrors : new Map()} />
            <div className="actions">
              <button type="submit" className="button" disabled={busy}>{t('branding.save')}</button>
            </div>
          </form>
          <form className="panel branding-logo-form" onSubmit={(event) => void upload(event)}>
            <fieldset>
              <legend>{t('branding.logo.legend')}</legend>
              <p className="hint">{t('branding.logo.hint')}</p>
              {branding.logoUrl && look.logoUrl ? (
                <figure>
                  <img className="branding-logo-current" src={look.logoUrl} alt={t('branding.logo.current')} />
                </figure>
              ) : (
                <p>{t('branding.logo.none')}</p>
              )}
              <label htmlFor={logoInput}>{t('branding.logo.file')}</label>
              <input id={logoInput} type="file" accept="image/png,image/jpeg,image/webp" onChange={(event) => setFile(event.target.files?.[0] ?? null)} />
            </fieldset>
            <div className="actions">
              <button type="submit" className="button" disabled={busy}>{busy ? t('branding.logo.uploading') : t('branding.logo.upload')}</button>
              {branding.logoUrl ? (
                <button type="button" className="button button-secondary" disabled={busy}
                  onClick={() => void act(t('branding.logo.failed'), t('branding.logo.removed'), () => call(api.DELETE('/v1/platforms/{platformKey}/branding/logo', path)))}>
                  {t('branding.logo.remove')}
                </button>
              ) : null}
            </div>
          </form>
          <p className="actions">
            <button type="button" className="button button-danger" disabled={busy} onClick={() => setConfirmClear(true)}>{t('branding.clear')}</button>
          </p>
        </div>
        <section className="branding-preview" aria-labelledby="branding-preview-title">
          <h2 id="branding-preview-title">{t('branding.preview.title')}</h2>
          <p className="hint">{t('branding.preview.hint', { platform: look.name })}</p>
          <PlatformBrandFrame look={look}>
            <BrandingPreviewStep platformName={look.name} />
          </PlatformBrandFrame>
        </section>
      </div>
      <ConfirmDialog
        open={confirmClear}
        title={t('branding.clearConfirmTitle', { platform: branding.displayName })}
        confirmLabel={t('branding.clear')}
        danger
        busy={busy}
        onCancel={() => setConfirmClear(false)}
        onConfirm={() => {
          setConfirmClear(false);
          void act(t('branding.saveFailed'), t('branding.cleared'), () => call(api.DELETE('/v1/platforms/{platformKey}/branding', path)), true);
        }}
      >
        <p>{t('branding.clearConfirmBody')}</p>
      </ConfirmDialog>
    </>
  );
}

/** A sample onboarding step inside the preview: a heading, a field, a link and the primary button (inert). */
function BrandingPreviewStep({ platformName }: { platformName: string }) {
  const intl = useIntl();
  const fieldId = useId();
  return (
    <div className="card" inert>
      <h3>{intl.formatMessage({ id: 'branding.preview.heading' }, { platform: platformName })}</h3>
      <label htmlFor={fieldId}>{intl.formatMessage({ id: 'branding.preview.field' })}</label>
      <input id={fieldId} type="text" readOnly tabIndex={-1} />
      <p><a href="#branding-preview-title" tabIndex={-1}>{intl.formatMessage({ id: 'branding.preview.link' })}</a></p>
      <p className="actions"><button type="button" className="button" tabIndex={-1}>{intl.formatMessage({ id: 'branding.preview.button' })}</button></p>
    </div>
  );
}
