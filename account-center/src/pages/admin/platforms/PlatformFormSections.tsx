import type { ReactNode } from 'react';
import { useIntl } from 'react-intl';
import { Field } from '../../../components/Field.tsx';
import { MODES, type OnboardingMode } from './model.ts';
import type { ErrorKey, PlatformFormValues } from './platformForm.ts';

// The sections of the platform form (PlatformForm.tsx) but its addresses (AddressesSection.tsx):
// who the platform is, how its people are onboarded, its metadata and initial status.

/** What every section of the platform form gets from the form (PlatformForm.tsx keeps the state). */
export interface SectionProps {
  /** The form's id, the prefix of the section headings' ids. */
  formId: string;
  mode: 'create' | 'edit';
  values: PlatformFormValues;
  set: <K extends keyof PlatformFormValues>(name: K, value: PlatformFormValues[K]) => void;
  clearError: (key: ErrorKey) => void;
  errorOf: (key: ErrorKey) => string | null;
  /** Records an input's id under its error key (for the error summary's links) and returns it. */
  remember: (key: ErrorKey, id: string) => string;
  /** The control of a checkbox bound to one boolean of the form, its error under errorKey. */
  checkbox: (
    name: 'centralOnboardingEnabled' | 'handoffChallengeRequired' | 'createInactive',
    errorKey: ErrorKey,
  ) => (field: { id: string; describedBy: string | undefined; invalid: boolean }) => ReactNode;
}

export function useT() {
  const intl = useIntl();
  return (id: string, values?: Record<string, string | number>) => intl.formatMessage({ id }, values);
}

/** The key (fixed once registered) and the name people see. */
export function IdentitySection({ formId, mode, values, set, clearError, errorOf, remember }: SectionProps) {
  const t = useT();
  return (
    <section className="panel" aria-labelledby={`${formId}-identity`}>
      <h2 id={`${formId}-identity`}>{t('platforms.form.identity')}</h2>
      <div className="form-grid">
        <Field label={t('platforms.field.platformKey')} required={mode === 'create'} help={t(mode === 'create' ? 'platforms.form.keyHint' : 'platforms.form.keyFixed')} error={errorOf('platformKey')} width="half">
          {({ id, describedBy, invalid }) => (
            <input
              id={remember('platformKey', id)}
              name="platformKey"
              type="text"
              className="platforms-mono"
              value={values.platformKey}
              readOnly={mode === 'edit'}
              aria-describedby={describedBy}
              aria-invalid={invalid || undefined}
              aria-required={mode === 'create' || undefined}
              autoCapitalize="characters"
              autoComplete="off"
              spellCheck={false}
              maxLength={64}
              onChange={(event) => {
                // Upper-cased as typed, keeping the caret where it was.
                const input = event.currentTarget;
                const upper = input.value.toUpperCase();
                if (upper !== input.value) {
                  const { selectionStart, selectionEnd } = input;
                  input.value = upper;
                  if (selectionStart !== null && selectionEnd !== null) input.setSelectionRange(selectionStart, selectionEnd);
                }
                set('platformKey', upper);
                clearError('platformKey');
              }}
            />
          )}
        </Field>
        <Field label={t('platforms.field.displayName')} required help={t('platforms.form.displayNameHelp')} error={errorOf('displayName')} width="half">
          {({ id, describedBy, invalid }) => (
            <input
              id={remember('displayName', id)}
              name="displayName"
              type="text"
              value={values.displayName}
              aria-describedby={describedBy}
              aria-invalid={invalid || undefined}
              aria-required
              maxLength={200}
              onChange={(event) => {
                set('displayName', event.target.value);
                clearError('displayName');
              }}
            />
          )}
        </Field>
      </div>
    </section>
  );
}

/** The onboarding mode, the platform's own onboarding path, its default language and the two switches. */
export function OnboardingSection({ formId, values, set, clearError, errorOf, remember, checkbox }: SectionProps) {
  const t = useT();
  return (
    <section className="panel" aria-labelledby={`${formId}-onboarding`}>
      <h2 id={`${formId}-onboarding`}>{t('platforms.form.onboarding')}</h2>
      <div className="form-grid">
        <Field label={t('platforms.field.defaultOnboardingMode')} help={MODES.includes(values.mode) ? t(`platforms.mode.${values.mode}.description`) : undefined} error={errorOf('defaultOnboardingMode')} width="half">
          {({ id, describedBy, invalid }) => (
            <select
              id={remember('defaultOnboardingMode', id)}
              name="defaultOnboardingMode"
              value={values.mode}
              aria-describedby={describedBy}
              aria-invalid={invalid || undefined}
              onChange={(event) => {
                set('mode', event.target.value as OnboardingMode);
                clearError('defaultOnboardingMode');
              }}
            >
              {MODES.map((option) => <option key={option} value={option}>{t(`platforms.mode.${option}`)}</option>)}
            </select>
          )}
        </Field>
        <Field label={t('platforms.field.platformOnboardingPath')} help={t('platforms.form.onboardingPathHelp')} error={errorOf('platformOnboardingPath')} width="half">
          {({ id, describedBy, invalid }) => (
            <input
              id={remember('platformOnboardingPath', id)}
              name="platformOnboardingPath"
              type="text"
              value={values.onboardingPath}
              aria-describedby={describedBy}
              aria-invalid={invalid || undefined}
              autoComplete="off"
              spellCheck={false}
              onChange={(event) => {
                set('onboardingPath', event.target.value);
                clearError('platformOnboardingPath');
              }}
            />
          )}
        </Field>
        <Field label={t('platforms.field.defaultLanguage')} help={t('platforms.form.defaultLanguageHelp')} error={errorOf('defaultLanguage')} width="half">
          {({ id, describedBy, invalid }) => (
            <input
              id={remember('defaultLanguage', id)}
              name="defaultLanguage"
              type="text"
              value={values.defaultLanguage}
              aria-describedby={describedBy}
              aria-invalid={invalid || undefined}
              autoComplete="off"
              spellCheck={false}
              maxLength={35}
              onChange={(event) => {
                set('defaultLanguage', event.target.value);
                clearError('defaultLanguage');
              }}
            />
          )}
        </Field>
        <Field kind="checkbox" label={t('platforms.field.centralOnboardingEnabled')} help={t('platforms.form.centralOnboardingHelp')} error={errorOf('centralOnboardingEnabled')}>
          {checkbox('centralOnboardingEnabled', 'centralOnboardingEnabled')}
        </Field>
        <Field
          kind="checkbox"
          label={t('platforms.field.handoffChallengeRequired')}
          help={t('platforms.form.handoffChallengeHelp')}
          description={values.handoffChallengeRequired ? null : t('platforms.handoffChallengeOffWarning')}
          error={errorOf('handoffChallengeRequired')}
        >
          {checkbox('handoffChallengeRequired', 'handoffChallengeRequired')}
        </Field>
      </div>
    </section>
  );
}

/** Free-form metadata, and on registering whether the platform starts inactive. */
export function MetadataSection({ formId, mode, values, set, clearError, errorOf, remember, checkbox }: SectionProps) {
  const t = useT();
  return (
    <section className="panel" aria-labelledby={`${formId}-more`}>
      <h2 id={`${formId}-more`}>{t(mode === 'create' ? 'platforms.form.metadataAndStatus' : 'platforms.form.metadata')}</h2>
      <div className="form-grid">
        <Field label={t('platforms.field.metadata')} help={t('platforms.form.metadataHelp', { example: '{"team": "identity"}' })} error={errorOf('metadata')}>
          {({ id, describedBy, invalid }) => (
            <textarea
              id={remember('metadata', id)}
              name="metadata"
              className="platforms-mono"
              rows={6}
              value={values.metadata}
              aria-describedby={describedBy}
              aria-invalid={invalid || undefined}
              spellCheck={false}
              autoCapitalize="off"
              onChange={(event) => {
                set('metadata', event.target.value);
                clearError('metadata');
              }}
            />
          )}
        </Field>
        {mode === 'create' ? (
          <Field kind="checkbox" label={t('platforms.field.active')} help={t('platforms.form.createInactiveHelp')} error={errorOf('active')}>
            {checkbox('createInactive', 'active')}
          </Field>
        ) : null}
      </div>
    </section>
  );
}
