// Onboarding field texts in other languages (issue 27): the rules of a definition's
// `translations` (shared by the admin API and the CLI through definitions.ts), and the
// texts of one language for the requirements response. Pure module: no I/O.
import type { FieldError } from '../../errors/catalogue.ts';
import type { FieldOption, FieldTranslation, FieldTranslations } from '../../domain/onboarding.ts';
import { checkText, DESCRIPTION_MAX_LENGTH, escapePointer, fail, HELP_TEXT_MAX_LENGTH, isPlainObject, LABEL_MAX_LENGTH, MAX_OPTIONS, OPTION_MAX_LENGTH, PLACEHOLDER_MAX_LENGTH } from './definitionText.ts';

/** Languages one definition may translate to (the contract's maxProperties). */
export const MAX_TRANSLATIONS = 20;
/** A BCP 47 tag as the contract takes it; Intl then canonicalises it (`de-at` → `de-AT`). */
const LANGUAGE_TAG = /^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8})*$/;
const TRANSLATION_KEYS = ['label', 'placeholder', 'description', 'helpText', 'options'] as const;

/**
 * Texts in other languages: by canonical BCP 47 tag (two spellings of one tag are refused, not
 * merged), each text checked as its default counterpart is (plain, bounded, no control
 * characters). A language left with no text is dropped. Whether option labels name the field's
 * options is a cross rule.
 */
export function checkTranslations(value: unknown, errors: FieldError[]): FieldTranslations | undefined {
  if (!isPlainObject(value)) return fail(errors, 'translations', 'must be an object of translations by language tag');
  const entries = Object.entries(value);
  if (entries.length > MAX_TRANSLATIONS) return fail(errors, 'translations', `must hold at most ${MAX_TRANSLATIONS} languages`);
  const before = errors.length;
  const result: FieldTranslations = {};
  const spelledAs = new Map<string, string>();
  for (const [tag, translation] of entries) {
    const at = `translations/${escapePointer(tag)}`;
    const canonical = canonicalLanguageTag(tag);
    if (!canonical) {
      fail(errors, at, 'must be keyed by a BCP 47 language tag such as de or de-AT');
      continue;
    }
    const earlier = spelledAs.get(canonical);
    if (earlier !== undefined) {
      fail(errors, at, `names the same language as ${earlier}`);
      continue;
    }
    spelledAs.set(canonical, tag);
    if (!isPlainObject(translation)) {
      fail(errors, at, 'must be an object with label, placeholder, description, helpText or options');
      continue;
    }
    for (const key of Object.keys(translation)) {
      if (!(TRANSLATION_KEYS as readonly string[]).includes(key)) fail(errors, `${at}/${escapePointer(key)}`, `is not a known key (${TRANSLATION_KEYS.join(', ')})`);
    }
    const texts: FieldTranslation = {};
    const text = (key: 'label' | 'placeholder' | 'description' | 'helpText', max: number, multiline: boolean) => {
      if (translation[key] === undefined) return;
      const checked = checkText(`${at}/${key}`, translation[key], errors, { min: 1, max, nullable: false, multiline });
      if (typeof checked === 'string') texts[key] = checked;
    };
    text('label', LABEL_MAX_LENGTH, false);
    text('placeholder', PLACEHOLDER_MAX_LENGTH, false);
    text('description', DESCRIPTION_MAX_LENGTH, true);
    text('helpText', HELP_TEXT_MAX_LENGTH, true);
    if (translation.options !== undefined) {
      const options = checkOptionLabels(`${at}/options`, translation.options, errors);
      if (options && Object.keys(options).length > 0) texts.options = options;
    }
    if (Object.keys(texts).length > 0) result[canonical] = texts;
  }
  return errors.length === before ? result : undefined;
}

function checkOptionLabels(at: string, value: unknown, errors: FieldError[]): Record<string, string> | undefined {
  if (!isPlainObject(value)) return fail(errors, at, 'must be an object of option labels by option value');
  const entries = Object.entries(value);
  if (entries.length > MAX_OPTIONS) return fail(errors, at, `must hold at most ${MAX_OPTIONS} option labels`);
  const labels: [string, string][] = [];
  for (const [optionValue, label] of entries) {
    const checked = checkText(`${at}/${escapePointer(optionValue)}`, label, errors, { min: 1, max: OPTION_MAX_LENGTH, nullable: false, multiline: false });
    if (typeof checked === 'string') labels.push([optionValue, checked]);
  }
  // Defined, not assigned: an option value such as `__proto__` stays an ordinary key.
  return Object.fromEntries(labels);
}

/** The canonical form of a language tag, or null when it is none. */
export function canonicalLanguageTag(tag: string): string | null {
  if (tag.length > 35 || !LANGUAGE_TAG.test(tag)) return null;
  try {
    return Intl.getCanonicalLocales(tag)[0] ?? null;
  } catch {
    return null;
  }
}

/**
 * Option labels translate options the field has. Sent with the translations, a label of an
 * unknown value is refused (a typo would never show); when only `options` changed, the labels
 * of options it removed are dropped with them.
 */
export function checkTranslatedOptions(translations: FieldTranslations, options: readonly FieldOption[], errors: FieldError[], sent: boolean): FieldTranslations {
  const values = new Set(options.map((option) => option.value));
  const kept: FieldTranslations = {};
  for (const [tag, translation] of Object.entries(translations)) {
    const labels = Object.entries(translation.options ?? {});
    const known = labels.filter(([value]) => values.has(value));
    if (sent) {
      for (const [value] of labels) {
        if (!values.has(value)) fail(errors, `translations/${escapePointer(tag)}/options/${escapePointer(value)}`, "is not the value of one of the field's options");
      }
    }
    const { options: _dropped, ...texts } = translation;
    const next: FieldTranslation = known.length > 0 ? { ...texts, options: Object.fromEntries(known) } : texts;
    if (Object.keys(next).length > 0) kept[tag] = next;
  }
  return kept;
}

// ---------------------------------------------------------------- texts for one language

/** The texts a translation can replace, as a definition view carries them. */
interface TranslatableField {
  label: string;
  placeholder: string | null;
  description: string | null;
  uiConfig: { width?: 'full' | 'half' | 'third'; helpText?: string };
  options: FieldOption[];
  translations: FieldTranslations;
}

/** Every language the fields translate to (canonical tags, each once). */
export function translationLanguages(fields: readonly Pick<TranslatableField, 'translations'>[]): string[] {
  return [...new Set(fields.flatMap((field) => Object.keys(field.translations)))];
}

/**
 * The translation among `available` for one wanted tag: the tag itself, then the tag cut back
 * subtag by subtag (RFC 4647 §3.4 lookup: `de-AT-1996` → `de-AT` → `de`), then any other tag of
 * the same language (`de` finds `de-CH`); null when none. Case-insensitive (RFC 5646 §2.1.1).
 */
export function matchLanguage(wanted: string, available: readonly string[]): string | null {
  const lower = new Map(available.map((tag) => [tag.toLowerCase(), tag]));
  const subtags = wanted.toLowerCase().split('-');
  for (let length = subtags.length; length > 0; length--) {
    const found = lower.get(subtags.slice(0, length).join('-'));
    if (found) return found;
  }
  return available.find((tag) => tag.toLowerCase().split('-')[0] === subtags[0]) ?? null;
}

/** The field with its texts in `language` where it translates them (the default text elsewhere). */
export function localiseField<T extends TranslatableField>(field: T, language: string | null): T {
  const translation = language ? field.translations[language] : undefined;
  if (!translation) return field;
  const helpText = translation.helpText ?? field.uiConfig.helpText;
  return {
    ...field,
    label: translation.label ?? field.label,
    placeholder: translation.placeholder ?? field.placeholder,
    description: translation.description ?? field.description,
    uiConfig: helpText === undefined ? field.uiConfig : { ...field.uiConfig, helpText },
    options: field.options.map((option) => ({ value: option.value, label: ownText(translation.options, option.value) ?? option.label })),
  };
}

/** An own entry only: an option value such as `constructor` must not find the prototype's. */
function ownText(texts: Record<string, string> | undefined, key: string): string | undefined {
  return texts && Object.hasOwn(texts, key) ? texts[key] : undefined;
}
