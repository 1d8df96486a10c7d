import { useEffect, useId, useRef, type ReactNode } from 'react';
import { useIntl } from '../i18n/useIntl.ts';

/**
 * A modal confirmation (the native <dialog>: focus is trapped and Escape cancels). The
 * confirm button is disabled until `canConfirm` (e.g. a typed confirmation matches).
 */
export function ConfirmDialog({ open, title, children, confirmLabel, danger, canConfirm = true, busy, onConfirm, onCancel }: {
  open: boolean;
  title: string;
  children?: ReactNode;
  confirmLabel: string;
  danger?: boolean;
  canConfirm?: boolean;
  busy?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const intl = useIntl();
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal?.();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog ref={ref} className="dialog" aria-labelledby={titleId} onCancel={(event) => { event.preventDefault(); onCancel(); }}>
      <h2 id={titleId}>{title}</h2>
      <div className="dialog-body">{children}</div>
      <div className="dialog-actions">
        <button type="button" className="button button-secondary" onClick={onCancel} disabled={busy}>{intl.formatMessage({ id: 'common.cancel' })}</button>
        <button type="button" className={`button${danger ? ' button-danger' : ''}`} onClick={onConfirm} disabled={!canConfirm || busy}>
          {busy ? intl.formatMessage({ id: 'common.working' }) : confirmLabel}
        </button>
      </div>
    </dialog>
  );
}
