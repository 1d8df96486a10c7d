// Ajv's validation errors as the contract's field errors (JSON pointers with a stable reason),
// for the request validation of src/api/requestParsing.ts.

import type { ErrorObject } from 'ajv';
import type { FieldError, FieldErrorReason } from '../errors/catalogue.ts';

/** Ajv errors as JSON pointers into the request: `/query/returnTo`, `/body/code`. */
export function toFieldErrors(errors: ErrorObject[]): FieldError[] {
  const seen = new Set<string>();
  const out: FieldError[] = [];
  for (const error of errors) {
    let pointer = error.instancePath.replace(/^\/requestBody/, '/body');
    if (pointer === '' && error.instancePath === '' && error.keyword === 'required' && error.schemaPath.includes('requestBody')) pointer = '/body';
    if (error.keyword === 'required') pointer += `/${escapePointer(String(error.params.missingProperty))}`;
    if (error.keyword === 'additionalProperties') pointer += `/${escapePointer(String(error.params.additionalProperty))}`;
    // anyOf/oneOf report every branch; keep one message per pointer.
    if (['anyOf', 'oneOf', 'if'].includes(error.keyword)) continue;
    const message = error.keyword === 'additionalProperties' ? 'is not a known property' : (error.message ?? 'is invalid');
    const key = `${pointer}\u0000${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ pointer: pointer || '/', message, reason: reasonOf(error) });
  }
  return out.length > 0 ? out : [{ pointer: '/', message: 'is invalid', reason: 'INVALID' }];
}

/**
 * The contract promises a `reason` (FieldErrorReason) with every field error: each Ajv keyword
 * (JSON Schema 2020-12 validation vocabulary) maps to one. Keep in sync with the contract's list.
 */
const REASON_OF_KEYWORD: Readonly<Record<string, FieldErrorReason>> = {
  type: 'WRONG_TYPE',
  maxLength: 'TOO_LONG',
  minLength: 'TOO_SHORT',
  maximum: 'ABOVE_MAX',
  exclusiveMaximum: 'ABOVE_MAX',
  minimum: 'BELOW_MIN',
  exclusiveMinimum: 'BELOW_MIN',
  enum: 'NOT_AN_OPTION',
  const: 'NOT_AN_OPTION',
  pattern: 'PATTERN',
  format: 'INVALID_FORMAT',
  required: 'MISSING',
  dependentRequired: 'MISSING',
  additionalProperties: 'UNKNOWN_PROPERTY',
  unevaluatedProperties: 'UNKNOWN_PROPERTY',
  propertyNames: 'UNKNOWN_PROPERTY',
  minItems: 'TOO_FEW',
  minProperties: 'TOO_FEW',
  minContains: 'TOO_FEW',
  maxItems: 'TOO_MANY',
  maxProperties: 'TOO_MANY',
  maxContains: 'TOO_MANY',
  unevaluatedItems: 'TOO_MANY',
  uniqueItems: 'DUPLICATE_ITEM',
};

function reasonOf(error: ErrorObject): FieldErrorReason {
  return REASON_OF_KEYWORD[error.keyword] ?? 'INVALID';
}

export const escapePointer = (segment: string) => segment.replaceAll('~', '~0').replaceAll('/', '~1');
