import { useState } from 'react';
import { useIntl } from 'react-intl';
import { ApiProblem, call } from '../../api.ts';
import { useSession } from '../../session.tsx';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { Field } from '../../components/Field.tsx';
import { problemText } from '../../i18n/problems.ts';

/**
 * What the person types to confirm: one word for everyone (an e-mail may be missing), in the
 * page's language (`account.delete.word`: DELETE, LÖSCHEN).
 */
const CONFIRMATION_WORD_ID = 'account.delete.word';

/**
 * The danger zone: deleting the account, after a dialog that says what happens and a typed
 * confirmation. `onDeleted` runs once the gateway has deleted it (the session is gone).
 */
export function DeleteAccountSection({ onDeleted }: { onDeleted: () => void }) {
  const { api } = useSession();
  const intl = useIntl();
  const t = (id: string, values?: Record<string, string | number>) => intl.formatMessage({ id }, values);
  const word = t(CONFIRMATION_WORD_ID);
  const [open, setOpen] = useState(false);
  const [typed, setTyped] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const confirmed = typed.trim() === word;

  const close = () => {
    if (busy) return;
    setOpen(false);
    setTyped('');
    setError(null);
  };

  async function remove() {
    if (!confirmed || busy) return;
    setBusy(true);
    setError(null);
    try {
      await call(api.DELETE('/v1/account/me'));
      onDeleted();
    } catch (failure) {
      const problem = failure instanceof ApiProblem ? failure : new ApiProblem(0, null);
      setError(problem.needsSignIn
        ? t('account.delete.signedOut')
        : t('account.delete.failed', { reason: problemText(intl, problem) }));
      setBusy(false);
    }
  }

  return (
    <>
      <p>{t('account.delete.intro')}</p>
      <div className="actions">
        <button type="button" className="button button-danger" onClick={() => setOpen(true)}>{t('account.delete.open')}</button>
      </div>
      <ConfirmDialog
        open={open}
        title={t('account.delete.title')}
        confirmLabel={t('account.delete.confirm')}
        danger
        canConfirm={confirmed}
        busy={busy}
        onConfirm={() => void remove()}
        onCancel={close}
      >
        <p>{t('account.delete.when')}</p>
        <ul className="profile-consequences">
          <li>{t('account.delete.signIns')}</li>
          <li>{t('account.delete.platforms')}</li>
          <li>{t('account.delete.retention')}</li>
        </ul>
        <form onSubmit={(event) => { event.preventDefault(); void remove(); }}>
          <Field label={t('account.delete.typeToConfirm', { word })} help={t('account.delete.capitals')} error={error}>
            {({ id, describedBy, invalid }) => (
              <input id={id} type="text" value={typed} autoComplete="off" autoCapitalize="characters" spellCheck={false} disabled={busy}
                aria-describedby={describedBy} aria-invalid={invalid || undefined} onChange={(event) => setTyped(event.target.value)} />
            )}
          </Field>
        </form>
      </ConfirmDialog>
    </>
  );
}
