import { Field } from '../../components/Field.tsx';
import { useIntl } from '../../i18n/useIntl.ts';
import { formatPhone } from './fieldMessages.ts';
import type { RequirementField } from './onboardingFlow.ts';

/** The person's answer to an offer: use the value given elsewhere, or enter another one. */
export type OfferChoice = 'use' | 'other';

/**
 * An `ask` field with a value the person gave another platform (issue 36): "Use the phone
 * number you gave <A>?" with the value, as two radio buttons. Nothing is shared until the person
 * picks "use" and saves; "enter another one" shows the field's own input (OnboardingForm).
 */
export function SharedOffer({ field, platformName, choice, error, onChoose }: {
  field: RequirementField;
  platformName: string;
  choice: OfferChoice | undefined;
  error: string | null;
  onChoose: (choice: OfferChoice) => void;
}) {
  const intl = useIntl();
  const offer = field.sharedOffer!;
  const shown = offerText(field);
  const question = offer.fromPlatform
    ? intl.formatMessage({ id: 'onboarding.shared.question' }, { value: shown, from: offer.fromPlatform.displayName, platform: platformName })
    : intl.formatMessage({ id: 'onboarding.shared.questionProfile' }, { value: shown, platform: platformName });
  return (
    <Field label={field.label} required={field.required} description={question} error={error} width={field.uiConfig.width ?? null} kind="group">
      {({ id, describedBy, invalid }) => (
        <div id={id} aria-describedby={describedBy}>
          {(['use', 'other'] as const).map((option) => (
            <label key={option} className="choice" htmlFor={`${id}-${option}`}>
              <input id={`${id}-${option}`} type="radio" name={`${id}-offer`} checked={choice === option} aria-invalid={invalid || undefined} onChange={() => onChoose(option)} />
              <span>{option === 'use' ? intl.formatMessage({ id: 'onboarding.shared.use' }, { value: shown }) : intl.formatMessage({ id: 'onboarding.shared.other' })}</span>
            </label>
          ))}
        </div>
      )}
    </Field>
  );
}

/** The offered value as people read it (a phone number as they write it). */
function offerText(field: RequirementField): string {
  const value = field.sharedOffer?.value;
  if (field.fieldType === 'PHONE' && typeof value === 'string') return formatPhone(value);
  if (field.fieldType === 'COUNTRY' && typeof value === 'string') {
    return new Intl.DisplayNames([document.documentElement.lang || 'en'], { type: 'region' }).of(value) ?? value;
  }
  return Array.isArray(value) ? value.join(', ') : String(value ?? '');
}
