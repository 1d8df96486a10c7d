// The rules of a document version, shared by the admin API and the operator CLI.
//
// Shapes (key and language patterns, lengths, https-only URLs, one of Markdown or a linked
// text) are the contract's: the API validates them before the operation runs, and the CLI
// validates through the same compiled schemas here. What a schema cannot say is checked here:
// the default language is one of the texts; a linked text lives on one of the platform's
// allowed return origins (parsed and compared as origins, never as strings); a date parses.
// The digest of a Markdown text is the gateway's own (SHA-256 of its UTF-8 bytes): it is what an
// acceptance records, so the record proves which text was shown.
//
// Pure module: no I/O but reading the contract once.

import { createHash } from 'node:crypto';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { components } from '../../../generated/gateway.ts';
import { loadContract } from '../../contract.ts';
import { validationError, type FieldError } from '../../errors/catalogue.ts';
import { parseAbsoluteHttpUrl } from '../../security/urls.ts';
import type { DocumentText } from '../../domain/documents.ts';
import type { VersionRow, VersionSettings } from './repository.ts';

export type DraftCreateInput = components['schemas']['DocumentDraftCreateRequest'];
export type DraftUpdateInput = components['schemas']['DocumentDraftUpdateRequest'];
type TextInput = components['schemas']['DocumentTextInput'];

let validators: { create: ValidateFunction; update: ValidateFunction } | undefined;

/** The contract's schemas of a draft body, compiled once (Ajv 2020-12, as the API's). */
function contractValidators(): { create: ValidateFunction; update: ValidateFunction } {
  if (validators) return validators;
  const ajv = new Ajv2020.default({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema({ $id: 'gateway-contract', components: loadContract().components } as object);
  validators = {
    create: ajv.getSchema('gateway-contract#/components/schemas/DocumentDraftCreateRequest')!,
    update: ajv.getSchema('gateway-contract#/components/schemas/DocumentDraftUpdateRequest')!,
  };
  return validators;
}

/** Throws VALIDATION_FAILED with every schema error of `body` (the CLI; the API has run the same check). */
export function requireContractShape(kind: 'create' | 'update', body: unknown): void {
  const validate = contractValidators()[kind];
  if (validate(body)) return;
  throw validationError((validate.errors ?? []).map(toFieldError));
}

function toFieldError(error: ErrorObject): FieldError {
  return { pointer: `/body${error.instancePath}`, message: error.message ?? 'is not valid' };
}

/** SHA-256, lowercase hex, of a text's UTF-8 bytes. */
export function textDigest(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** The draft's stored settings from a create body, checked against the platform's allowed origins. */
export function draftSettings(input: DraftCreateInput, allowedOrigins: readonly string[]): VersionSettings {
  return checkedSettings(
    { material: input.material, effectiveAt: input.effectiveAt ?? null, defaultLanguage: input.defaultLanguage, texts: input.texts },
    allowedOrigins,
  );
}

/** A draft's settings after a PATCH: the given properties replace the stored ones. */
export function patchedSettings(current: VersionRow, input: DraftUpdateInput, allowedOrigins: readonly string[]): VersionSettings {
  return checkedSettings(
    {
      material: input.material ?? current.material,
      effectiveAt: input.effectiveAt !== undefined ? input.effectiveAt : (current.effectiveAt?.toISOString() ?? null),
      defaultLanguage: input.defaultLanguage ?? current.defaultLanguage,
      texts: input.texts ?? current.texts,
    },
    allowedOrigins,
  );
}

function checkedSettings(
  input: { material: boolean; effectiveAt: string | null; defaultLanguage: string; texts: Record<string, TextInput | DocumentText> },
  allowedOrigins: readonly string[],
): VersionSettings {
  const errors: FieldError[] = [];
  const texts: Record<string, DocumentText> = {};
  for (const [language, text] of Object.entries(input.texts)) {
    const stored = storedText(text, allowedOrigins);
    if ('error' in stored) errors.push({ pointer: `/body/texts/${language}/url`, message: stored.error });
    else texts[language] = stored.text;
  }
  if (!(input.defaultLanguage in input.texts)) {
    errors.push({ pointer: '/body/defaultLanguage', message: 'must be one of the languages of texts' });
  }
  const effectiveAt = input.effectiveAt === null ? null : new Date(input.effectiveAt);
  if (effectiveAt !== null && Number.isNaN(effectiveAt.getTime())) errors.push({ pointer: '/body/effectiveAt', message: 'must be a date-time' });
  if (errors.length > 0) throw validationError(errors, 'The version is not valid; nothing was stored.');
  return { material: input.material, effectiveAt, defaultLanguage: input.defaultLanguage, texts };
}

/** A Markdown text gets the gateway's digest; a linked one keeps its own, once its URL is on an allowed origin. */
function storedText(given: TextInput | DocumentText, allowedOrigins: readonly string[]): { text: DocumentText } | { error: string } {
  const text = given as { title: string; markdown?: string; url?: string; sha256?: string };
  if (text.markdown !== undefined) return { text: { title: text.title, markdown: text.markdown, sha256: textDigest(text.markdown) } };
  const checked = parseAbsoluteHttpUrl(text.url ?? '', { allowQuery: true });
  if (!checked.ok) return { error: checked.reason };
  if (checked.url.protocol !== 'https:') return { error: 'must be an https URL' };
  if (!allowedOrigins.includes(checked.url.origin)) return { error: "must be on one of the platform's allowed return origins" };
  return { text: { title: text.title, url: checked.url.href, sha256: text.sha256! } };
}

/** The origins of a platform's allowed return URLs (where its linked texts may live). */
export function allowedOriginsOf(allowedReturnUrls: readonly string[]): string[] {
  return allowedReturnUrls.filter((url) => URL.canParse(url)).map((url) => new URL(url).origin);
}
