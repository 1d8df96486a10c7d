// Onboarding field definitions as stored: shared by the schema rules (services), the
// repositories and the operations, below all three (GUIDE §7).
import type { components } from '../../generated/gateway.ts';

export type FieldType = components['schemas']['OnboardingFieldType'];
export type FieldSource = components['schemas']['OnboardingFieldSource'];
export type ProfileField = NonNullable<components['schemas']['ProfileField']>;
/** A PROFILE_FIELD's sharing rule (issue 36); CUSTOM_FIELD definitions have none. */
export type FieldSharing = NonNullable<components['schemas']['OnboardingFieldSharing']>;
export type FieldOption = components['schemas']['OnboardingFieldOption'];
export type FieldValidation = components['schemas']['OnboardingFieldValidation'];
export type FieldUiConfig = components['schemas']['OnboardingFieldUiConfig'];
export type FieldTranslations = components['schemas']['OnboardingFieldTranslations'];
export type FieldTranslation = components['schemas']['OnboardingFieldTranslation'];

/** What an administrator sets on a field definition (every property but the key is changeable). */
export interface FieldDefinitionSettings {
  fieldKey: string;
  label: string;
  fieldType: FieldType;
  source: FieldSource;
  profileField: ProfileField | null;
  /** `shared` (the default), `ask` or `own` for a PROFILE_FIELD; null for a CUSTOM_FIELD. */
  sharing: FieldSharing | null;
  required: boolean;
  sortOrder: number;
  options: FieldOption[];
  validation: FieldValidation;
  uiConfig: FieldUiConfig;
  placeholder: string | null;
  description: string | null;
  /** Texts in other languages, by canonical language tag (`{}` for none). */
  translations: FieldTranslations;
}

/** A stored definition. */
export interface FieldDefinitionRow extends FieldDefinitionSettings {
  id: string;
  platformId: string;
  archivedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** The canonical profile properties a PROFILE_FIELD definition can bind to, and their columns. */
export const PROFILE_COLUMNS: Readonly<Record<ProfileField, string>> = {
  firstName: 'first_name',
  lastName: 'last_name',
  displayName: 'display_name',
  dateOfBirth: 'date_of_birth',
  phone: 'phone',
  country: 'country',
};
