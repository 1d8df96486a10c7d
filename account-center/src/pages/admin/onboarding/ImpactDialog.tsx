import type { ReactNode } from 'react';
import { useIntl } from 'react-intl';
import { ConfirmDialog } from '../../../components/ConfirmDialog.tsx';
import { EnforcementChoice } from '../../../components/EnforcementChoice.tsx';
import { type ChangePreview } from './model.ts';
import { changedWords, impactSentence } from './impact.ts';

/**
 * The confirmation of a schema change, from its dry run: who will be asked again and the
 * requirement version it leads to; a change that changes nothing cannot be confirmed.
 */
export function ImpactDialog({ preview, steps = 1, title, intro, showChanges, confirmLabel, danger, busy, onConfirm, onCancel, enforcement }: {
  /** The dry run's answer; the dialog is open while there is one. */
  preview: ChangePreview | null;
  /** How many changes the action makes (a reorder may take several). */
  steps?: number;
  title: string;
  intro?: ReactNode;
  /** List the properties the change sets (an edit). */
  showChanges?: boolean;
  confirmLabel: string;
  danger?: boolean;
  busy?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
  /** Offer a date to enforce the change from (issue 36): the chosen one, and where to report it. */
  enforcement?: { enforceAfter: string | null; onChange: (enforceAfter: string | null) => void };
}) {
  const changed = preview?.changed ?? false;
  const intl = useIntl();
  const t = (id: string, values?: Record<string, string | number>) => intl.formatMessage({ id }, values);
  return (
    <ConfirmDialog
      open={preview !== null}
      title={changed ? title : t('schema.impact.nothingToSave')}
      confirmLabel={changed ? confirmLabel : t('schema.impact.nothingToSave')}
      canConfirm={changed}
      danger={danger}
      busy={busy}
      onConfirm={onConfirm}
      onCancel={onCancel}
    >
      {preview && changed ? (
        <>
          {intro}
          <p className="oa-impact">{impactSentence(intl, preview, steps)}</p>
          {showChanges && preview.changedFields.length > 0 ? <p>{t('schema.impact.changes', { changes: changedWords(intl, preview.changedFields) })}</p> : null}
          {preview.reopenedUsers > 0 ? (
            <p className="oa-muted">{t('schema.impact.reopened')}</p>
          ) : null}
          {enforcement ? (
            <>
              <EnforcementChoice onChange={enforcement.onChange} />
              {enforcement.enforceAfter ? <p>{t('common.enforcement.impact', { count: preview.reopenedUsers, meeting: preview.meetingUsers })}</p> : null}
            </>
          ) : null}
        </>
      ) : preview ? (
        <p className="oa-impact">{t('schema.impact.nothingLong')}</p>
      ) : null}
    </ConfirmDialog>
  );
}
