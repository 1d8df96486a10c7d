// The words of a dry run's impact (the dialog before a change is saved). Pure.
import type { IntlShape } from 'react-intl';
import type { ChangePreview } from './model.ts';

/**
 * The impact of a change from its dry run: who is asked again and the version it leads to.
 * `steps`: how many changes the action makes (a reorder may take several), each raising the
 * version by one; the first one reopens everyone who had completed.
 */
export function impactSentence(intl: IntlShape, preview: Pick<ChangePreview, 'changed' | 'reopenedUsers' | 'requirementVersion'>, steps = 1): string {
  if (!preview.changed) return intl.formatMessage({ id: 'schema.impact.nothing' });
  const version = preview.requirementVersion + Math.max(0, steps - 1);
  return intl.formatMessage({ id: 'schema.impact.sentence' }, { count: preview.reopenedUsers, version });
}

/** The properties a change can set (`schema.changed.<property>`). */
const CHANGED_PROPERTIES = new Set([
  'fieldKey', 'label', 'fieldType', 'source', 'profileField', 'required', 'sortOrder', 'options', 'validation', 'uiConfig', 'placeholder', 'description', 'archived', 'translations',
]);

/** The properties a change sets, in words ("label and required"). */
export function changedWords(intl: IntlShape, changedFields: readonly string[]): string {
  return intl.formatList(
    changedFields.map((field) => (CHANGED_PROPERTIES.has(field) ? intl.formatMessage({ id: `schema.changed.${field}` }) : field)),
    { type: 'unit' },
  );
}
