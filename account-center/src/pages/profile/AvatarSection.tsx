import { useEffect, useRef, useState, type ChangeEvent } from 'react';
import { useIntl, type IntlShape } from 'react-intl';
import { ApiProblem, call, type Problem } from '../../api.ts';
import { problemText } from '../../i18n/problems.ts';
import { useSession } from '../../session.tsx';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { Field } from '../../components/Field.tsx';
import { Notice } from '../../components/Notice.tsx';
import { AVATAR_TYPES, avatarFileProblem, formatBytes, initialsOf, type AvatarType, type Profile } from './profileModel.ts';

/** How the picture's bytes travel: the browser's fetch by default (replaceable in tests). */
export type UploadFetch = (input: string, init: RequestInit) => Promise<Response>;
const browserFetch: UploadFetch = (input, init) => fetch(input, init);

/**
 * The profile picture: the current one (or the initials), choosing a file with a preview,
 * uploading it through the gateway's ticket, and removing it. Files that cannot be a picture
 * are refused here, before anything is sent.
 */
export function AvatarSection({ profile, onChanged, uploadFetch = browserFetch }: {
  profile: Profile;
  /** Reload the profile after the picture changed. */
  onChanged: () => Promise<void>;
  uploadFetch?: UploadFetch;
}) {
  const { api, reload } = useSession();
  const intl = useIntl();
  const t = (id: string, values?: Record<string, string | number>) => intl.formatMessage({ id }, values);
  const inputRef = useRef<HTMLInputElement>(null);
  const statusRef = useRef<HTMLDivElement>(null);
  const [file, setFile] = useState<File | null>(null);
  const [preview, setPreview] = useState<string | null>(null);
  const [fileError, setFileError] = useState<string | null>(null);
  const [uploading, setUploading] = useState(false);
  const [done, setDone] = useState<string | null>(null);
  const [confirmRemove, setConfirmRemove] = useState(false);
  const [removing, setRemoving] = useState(false);
  const [removeError, setRemoveError] = useState<string | null>(null);

  // The preview is an object URL of the chosen file, revoked when the choice changes or goes.
  useEffect(() => {
    if (!file || typeof URL.createObjectURL !== 'function') return;
    const url = URL.createObjectURL(file);
    setPreview(url);
    return () => {
      URL.revokeObjectURL(url);
      setPreview(null);
    };
  }, [file]);

  const clearChoice = () => {
    setFile(null);
    if (inputRef.current) inputRef.current.value = '';
  };

  const announce = (text: string) => {
    setDone(text);
    // The buttons that were used go away: keep the keyboard user on the outcome.
    requestAnimationFrame(() => statusRef.current?.focus());
  };

  function choose(event: ChangeEvent<HTMLInputElement>) {
    const chosen = event.target.files?.[0] ?? null;
    setDone(null);
    if (!chosen) {
      setFile(null);
      setFileError(null);
      return;
    }
    const problem = avatarFileProblem(intl, chosen);
    setFileError(problem);
    if (problem) clearChoice();
    else setFile(chosen);
  }

  // The browser could not decode the chosen file (a damaged picture, or another kind of file
  // with a picture's name): say so beside the input instead of a broken preview, and drop it.
  function unreadable(chosen: File) {
    setFileError(t('account.picture.unreadable', { name: chosen.name }));
    clearChoice();
  }

  async function upload() {
    if (!file || uploading) return;
    setUploading(true);
    setFileError(null);
    try {
      await uploadPicture(intl, api, file, uploadFetch);
      clearChoice();
      await onChanged();
      void reload();
      announce(t('account.picture.saved'));
    } catch (failure) {
      setFileError(failure instanceof Error ? failure.message : String(failure));
    } finally {
      setUploading(false);
    }
  }

  async function remove() {
    setRemoving(true);
    setRemoveError(null);
    try {
      await call(api.DELETE('/v1/profile/me/avatar'));
      setConfirmRemove(false);
      await onChanged();
      void reload();
      announce(t('account.picture.removed'));
    } catch (failure) {
      setRemoveError(t('account.picture.notRemoved', { reason: failure instanceof ApiProblem ? problemText(intl, failure) : failure instanceof Error ? failure.message : '' }).trim());
    } finally {
      setRemoving(false);
    }
  }

  return (
    <div className="profile-avatar">
      <div className="profile-avatar-current">
        {profile.pictureUrl ? (
          <img className="profile-avatar-image" src={profile.pictureUrl} alt={t('account.picture.current')} width={112} height={112} />
        ) : (
          <span className="profile-avatar-image profile-avatar-initials" role="img" aria-label={t('account.picture.initials')}>
            {initialsOf(profile)}
          </span>
        )}
      </div>
      <div className="profile-avatar-controls">
        <div ref={statusRef} tabIndex={-1} className="profile-focus-target">
          {done ? <Notice tone="success" title={done} /> : null}
        </div>
        <Field
          label={t('account.picture.choose')}
          help={t('account.picture.help')}
          error={fileError}
        >
          {({ id, describedBy, invalid }) => (
            <input ref={inputRef} id={id} type="file" accept={AVATAR_TYPES.join(',')} className="profile-file" disabled={uploading}
              aria-describedby={describedBy} aria-invalid={invalid || undefined} onChange={choose} />
          )}
        </Field>
        {file ? (
          <figure className="profile-preview">
            {preview ? <img src={preview} alt={t('account.picture.preview')} width={112} height={112} onError={() => unreadable(file)} /> : null}
            <figcaption>
              {intl.formatMessage(
                { id: 'account.picture.notUploaded' },
                { name: <span className="profile-preview-name">{file.name}</span>, size: formatBytes(intl, file.size) },
              )}
            </figcaption>
          </figure>
        ) : null}
        <div className="actions profile-avatar-actions">
          {file ? (
            <>
              <button type="button" className="button" onClick={() => void upload()} aria-disabled={uploading || undefined}>
                {t(uploading ? 'account.picture.uploading' : 'account.picture.upload')}
              </button>
              <button type="button" className="button button-secondary" onClick={clearChoice} disabled={uploading}>{t('common.cancel')}</button>
            </>
          ) : null}
          {profile.pictureUrl && !file ? (
            <button type="button" className="button button-secondary" onClick={() => { setRemoveError(null); setConfirmRemove(true); }}>{t('account.picture.remove')}</button>
          ) : null}
        </div>
      </div>
      <ConfirmDialog
        open={confirmRemove}
        title={t('account.picture.removeTitle')}
        confirmLabel={t('account.picture.remove')}
        danger
        busy={removing}
        onConfirm={() => void remove()}
        onCancel={() => setConfirmRemove(false)}
      >
        <p>{t('account.picture.removeEffect')}</p>
        {removeError ? <p className="field-error" role="alert">{removeError}</p> : null}
      </ConfirmDialog>
    </div>
  );
}

/**
 * Upload a checked file through a ticket: ask for it, send exactly the ticket's method and
 * headers with the bytes (no cookie: the ticket's signature is the authority, and an object
 * store must never see the gateway's credentials), then confirm when the store needs it.
 * Throws an Error whose message is for people.
 */
export async function uploadPicture(intl: IntlShape, api: ReturnType<typeof useSession>['api'], file: File, uploadFetch: UploadFetch): Promise<string> {
  let ticket;
  try {
    ticket = await call(api.POST('/v1/profile/me/avatar/upload-request', {
      body: { contentType: file.type as AvatarType, contentLength: file.size },
    }));
  } catch (failure) {
    const problem = failure instanceof ApiProblem ? failure : new ApiProblem(0, null);
    throw new Error(uploadProblemText(intl, problem.status, problem.problem));
  }
  await send(intl, uploadFetch, ticket.uploadUrl, { method: ticket.method, headers: ticket.headers, body: file, credentials: 'omit', mode: 'cors' });
  if (ticket.confirmUrl !== null) await send(intl, uploadFetch, ticket.confirmUrl, { method: 'POST', credentials: 'omit', mode: 'cors' });
  return ticket.pictureUrl;
}

async function send(intl: IntlShape, uploadFetch: UploadFetch, url: string, init: RequestInit): Promise<void> {
  let response: Response;
  try {
    response = await uploadFetch(url, init);
  } catch {
    throw new Error(uploadProblemText(intl, 0, null));
  }
  if (response.ok) return;
  let problem: Problem | null = null;
  if (/json/.test(response.headers.get('Content-Type') ?? '')) {
    problem = (await response.json().catch(() => null)) as Problem | null;
  }
  throw new Error(uploadProblemText(intl, response.status, problem));
}

/** People's words for a failed ticket, upload or confirmation. */
export function uploadProblemText(intl: IntlShape, status: number, problem: Problem | null): string {
  const t = (id: string, values?: Record<string, string | number>) => intl.formatMessage({ id: `account.upload.${id}` }, values);
  const code = problem?.code;
  if (code === 'IMAGE_INVALID') return t('imageInvalid');
  if (status === 413 || code === 'PAYLOAD_TOO_LARGE') return t('tooLarge');
  if (status === 415 || code === 'UNSUPPORTED_MEDIA_TYPE') return t('wrongType');
  if (code === 'UPLOAD_TICKET_INVALID' || status === 404) return t('ticketInvalid');
  if (code === 'VALIDATION_FAILED') {
    const pointers = (problem?.errors ?? []).map((error) => error.pointer);
    if (pointers.includes('/body/contentType')) return t('wrongType');
    if (pointers.includes('/body/contentLength')) return t('tooLarge');
  }
  if (status === 401) return t('signedOut');
  if (status === 0) return t('network');
  if (status === 503) return t('unavailable');
  // The gateway's own detail (English) follows, for a failure this page has no words for.
  return t('failed', { status, detail: problem?.detail ?? '' }).trim();
}
