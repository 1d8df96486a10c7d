import type { ReactNode } from 'react';
import { ConfirmDialog } from '../../../components/ConfirmDialog.tsx';
import { changedWords, impactSentence, type ChangePreview } from './model.ts';

/**
 * The confirmation of a schema change, from its dry run: who will be asked again and the
 * requirement version it leads to; a change that changes nothing cannot be confirmed.
 */
export function ImpactDialog({ preview, steps = 1, title, intro, showChanges, confirmLabel, danger, busy, onConfirm, onCancel }: {
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
}) {
  const changed = preview?.changed ?? false;
  return (
    <ConfirmDialog
      open={preview !== null}
      title={changed ? title : 'Nothing to save'}
      confirmLabel={changed ? confirmLabel : 'Nothing to save'}
      canConfirm={changed}
      danger={danger}
      busy={busy}
      onConfirm={onConfirm}
      onCancel={onCancel}
    >
      {preview && changed ? (
        <>
          {intro}
          <p className="oa-impact">{impactSentence(preview, steps)}</p>
          {showChanges && preview.changedFields.length > 0 ? <p>{`Changes: ${changedWords(preview.changedFields)}.`}</p> : null}
          {preview.reopenedUsers > 0 ? (
            <p className="oa-muted">Their onboarding is in progress again until they complete the form anew; in central mode their next sign-in takes them through it.</p>
          ) : null}
        </>
      ) : preview ? (
        <p className="oa-impact">This change changes nothing: the field already has these settings, so there is nothing to save.</p>
      ) : null}
    </ConfirmDialog>
  );
}
