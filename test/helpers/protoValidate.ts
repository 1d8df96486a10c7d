// The request validation Zitadel runs before any handler (its connectRPC ValidationHandler calls the
// protoc-gen-validate `Validate()` of the request and answers INVALID_ARGUMENT, without an error
// detail, when it fails), read from the `validate.rules` options of @zitadel/proto's own
// descriptors. It checks the rule kinds Zitadel's user service uses and throws on any rule kind it
// does not know, so a rule is never silently skipped. Semantics as protoc-gen-validate's: lengths
// in characters (runes) or bytes; a field of a oneof, or with explicit presence, only when set;
// a nested message only when present, and then its own rules.

import { getOption, hasOption, toJson, type DescField, type DescMessage, type Message } from '@bufbuild/protobuf';
import { FieldRulesSchema, required as oneofRequired, rules } from '@zitadel/proto/validate/validate_pb.js';

type Rules = Record<string, unknown>;

/** The first violation, in protoc-gen-validate's wording, or undefined when the message is valid. */
export function violation(schema: DescMessage, message: Message): string | undefined {
  const record = message as unknown as Record<string, unknown>;
  for (const oneof of schema.oneofs) {
    const selected = record[oneof.localName] as { case?: string } | undefined;
    if (hasOption(oneof, oneofRequired) && getOption(oneof, oneofRequired) && !selected?.case) {
      return `invalid ${schema.name}.${oneof.name}: value is required`;
    }
  }
  for (const field of schema.fields) {
    let value: unknown;
    if (field.oneof) {
      const selected = record[field.oneof.localName] as { case?: string; value?: unknown } | undefined;
      if (selected?.case !== field.localName) continue;
      value = selected.value;
    } else {
      value = record[field.localName];
      // A scalar with explicit presence (proto3 `optional`) is checked only when set; a message
      // field is checked below (its `required` rule applies when it is absent).
      if (field.fieldKind !== 'message' && field.presence === 1 /* EXPLICIT */ && value === undefined) continue;
    }
    const fieldRules = hasOption(field, rules) ? toJson(FieldRulesSchema, getOption(field, rules)) as Rules : {};
    const problem = checkField(schema, field, value, fieldRules);
    if (problem) return problem;
  }
  return undefined;
}

function checkField(schema: DescMessage, field: DescField, value: unknown, fieldRules: Rules): string | undefined {
  const where = `invalid ${schema.name}.${field.name}`;
  const { message: messageRules, ...typed } = fieldRules as { message?: { required?: boolean; skip?: boolean } } & Rules;
  const kinds = Object.keys(typed);
  if (kinds.length > 1) throw new Error(`${where}: more than one rule kind (${kinds.join(', ')})`);
  const kind = kinds[0];
  const spec = (kind ? typed[kind] : {}) as Rules;

  if (field.fieldKind === 'message') {
    if (kind) throw new Error(`${where}: the fake cannot check "${kind}" rules on a message field`);
    if (value === undefined) return messageRules?.required ? `${where}: value is required` : undefined;
    if (messageRules?.skip) return undefined;
    return violation(field.message, value as Message);
  }
  if (field.fieldKind === 'list') {
    const items = value as unknown[];
    if (kind && kind !== 'repeated') throw new Error(`${where}: "${kind}" rules on a repeated field`);
    const { minItems, maxItems, unique, items: itemRules, ...rest } = spec as { minItems?: string; maxItems?: string; unique?: boolean; items?: Rules };
    unsupported(where, rest);
    if (minItems !== undefined && items.length < Number(minItems)) return `${where}: value must contain at least ${minItems} item(s)`;
    if (maxItems !== undefined && items.length > Number(maxItems)) return `${where}: value must contain no more than ${maxItems} item(s)`;
    if (unique && new Set(items.map((item) => JSON.stringify(item, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v)))).size !== items.length) {
      return `${where}: repeated value must contain unique items`;
    }
    if (field.listKind === 'message') {
      for (const item of items) {
        const problem = violation(field.message, item as Message);
        if (problem) return problem;
      }
    }
    if (itemRules) {
      for (const item of items) {
        const problem = checkScalar(where, item, itemRules);
        if (problem) return problem;
      }
    }
    return undefined;
  }
  if (field.fieldKind === 'map') {
    if (kind) throw new Error(`${where}: the fake cannot check rules on a map field`);
    return undefined;
  }
  if (field.fieldKind === 'enum' && kind === 'enum') {
    const { definedOnly, in: allowed, notIn, ...rest } = spec as { definedOnly?: boolean; in?: number[]; notIn?: number[] };
    unsupported(where, rest);
    const number = value as number;
    if (definedOnly && !field.enum.values.some((v) => v.number === number)) return `${where}: value must be one of the defined enum values`;
    if (allowed && !allowed.includes(number)) return `${where}: value must be in list ${JSON.stringify(allowed)}`;
    if (notIn?.includes(number)) return `${where}: value must not be in list ${JSON.stringify(notIn)}`;
    return undefined;
  }
  return kind ? checkScalar(where, value, fieldRules) : undefined;
}

const NUMERIC = new Set(['int32', 'int64', 'uint32', 'uint64', 'sint32', 'sint64', 'fixed32', 'fixed64', 'sfixed32', 'sfixed64', 'double', 'float']);

/** A scalar value against FieldRules (as JSON: {"string": {...}} or {"uint32": {...}}...). */
function checkScalar(where: string, value: unknown, fieldRules: Rules): string | undefined {
  const [kind, spec] = Object.entries(fieldRules)[0] ?? [];
  if (!kind) return undefined;
  if (kind === 'string') {
    const { minLen, maxLen, len, minBytes, maxBytes, ignoreEmpty, ...rest } = spec as Record<string, string | boolean | undefined>;
    unsupported(where, rest);
    const text = value as string;
    if (ignoreEmpty && text === '') return undefined;
    const runes = [...text].length;
    const bytes = Buffer.byteLength(text, 'utf8');
    if (len !== undefined && runes !== Number(len)) return `${where}: value length must be ${len} runes`;
    if (minLen !== undefined && maxLen !== undefined && (runes < Number(minLen) || runes > Number(maxLen))) {
      return `${where}: value length must be between ${minLen} and ${maxLen} runes, inclusive`;
    }
    if (minLen !== undefined && runes < Number(minLen)) return `${where}: value length must be at least ${minLen} runes`;
    if (maxLen !== undefined && runes > Number(maxLen)) return `${where}: value length must be at most ${maxLen} runes`;
    if (minBytes !== undefined && bytes < Number(minBytes)) return `${where}: value length must be at least ${minBytes} bytes`;
    if (maxBytes !== undefined && bytes > Number(maxBytes)) return `${where}: value length must be at most ${maxBytes} bytes`;
    return undefined;
  }
  if (NUMERIC.has(kind)) {
    const { gt, gte, lt, lte, const: exact, ...rest } = spec as Record<string, string | number | undefined>;
    unsupported(where, rest);
    const number = Number(value);
    if (exact !== undefined && number !== Number(exact)) return `${where}: value must equal ${exact}`;
    if (gt !== undefined && !(number > Number(gt))) return `${where}: value must be greater than ${gt}`;
    if (gte !== undefined && !(number >= Number(gte))) return `${where}: value must be greater than or equal to ${gte}`;
    if (lt !== undefined && !(number < Number(lt))) return `${where}: value must be less than ${lt}`;
    if (lte !== undefined && !(number <= Number(lte))) return `${where}: value must be less than or equal to ${lte}`;
    return undefined;
  }
  throw new Error(`${where}: the fake cannot check "${kind}" rules`);
}

function unsupported(where: string, rest: Rules): void {
  const names = Object.keys(rest);
  if (names.length > 0) throw new Error(`${where}: the fake cannot check the rule(s) ${names.join(', ')}`);
}
