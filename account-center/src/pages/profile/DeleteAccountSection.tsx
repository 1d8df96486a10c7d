import { useState } from 'react';
import { ApiProblem, call } from '../../api.ts';
import { useSession } from '../../session.tsx';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { Field } from '../../components/Field.tsx';

/** What the person types to confirm (the same for everyone; an e-mail may be missing). */
export const DELETE_CONFIRMATION = 'DELETE';

/**
 * The danger zone: deleting the account, after a dialog that says what happens and a typed
 * confirmation. `onDeleted` runs once the gateway has deleted it (the session is gone).
 */
export function DeleteAccountSection({ onDeleted }: { onDeleted: () => void }) {
  const { api } = useSession();
  const [open, setOpen] = useState(false);
  const [typed, setTyped] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const confirmed = typed.trim() === DELETE_CONFIRMATION;

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
        ? 'Your sign-in has ended, so the account was not deleted. Sign in again and retry.'
        : `Your account was not deleted. ${problem.message}`);
      setBusy(false);
    }
  }

  return (
    <>
      <p>
        Deleting your account ends every sign-in at once, and the platforms you use lose access to
        your details. This cannot be undone.
      </p>
      <div className="actions">
        <button type="button" className="button button-danger" onClick={() => setOpen(true)}>Delete my account…</button>
      </div>
      <ConfirmDialog
        open={open}
        title="Delete your account?"
        confirmLabel="Delete my account"
        danger
        canConfirm={confirmed}
        busy={busy}
        onConfirm={() => void remove()}
        onCancel={close}
      >
        <p>When you delete your account:</p>
        <ul className="profile-consequences">
          <li>every sign-in ends at once, here and on every platform, and you cannot sign in again;</li>
          <li>the platforms you use lose access to your account and your details;</li>
          <li>your profile, picture and onboarding answers are kept for a limited retention period, then removed for good.</li>
        </ul>
        <form onSubmit={(event) => { event.preventDefault(); void remove(); }}>
          <Field label={`Type ${DELETE_CONFIRMATION} to confirm`} help="In capital letters." error={error}>
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
