import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { OpenAPIV3_1 } from 'openapi-types';

/**
 * The contract (its source of truth is openapi/gateway.yaml) as JSON, written by `npm run codegen` (a test fails when it is stale):
 * what the gateway reads, because parsing the YAML at boot left ~33 MB more resident memory
 * than JSON.parse (docs/benchmarks.md, "Memory").
 */
export const CONTRACT_JSON_PATH = fileURLToPath(new URL('../generated/gateway.json', import.meta.url));

/**
 * The contract as JSON text, read once. Only this text (about 180 kB) is kept: each caller
 * gets its own document from it and drops it once done, so the process does not hold a
 * parsed copy next to the one openapi-backend dereferences.
 */
let text: string | undefined;

function contractText(): string {
  text ??= readFileSync(CONTRACT_JSON_PATH, 'utf8');
  return text;
}

/** The contract: a fresh document on each call, the caller's to keep or change. */
export function loadContract(): OpenAPIV3_1.Document {
  return JSON.parse(contractText()) as OpenAPIV3_1.Document;
}

/** A document of its own, for libraries that dereference (and so mutate) what they are given. */
export function contractCopy(): OpenAPIV3_1.Document {
  return loadContract();
}

/**
 * The pattern of one of the contract's schemas (components.schemas.<name>.pattern) as a RegExp,
 * with the `u` flag Ajv's request validation uses: the one source of a rule that code outside the
 * request validation checks too (the registry, the audit filter, the CLI, the configuration).
 * A schema without a pattern throws when the module asking for it loads, so a renamed schema
 * cannot leave a check without its rule.
 */
export function schemaPattern(name: string): RegExp {
  const schema = loadContract().components?.schemas?.[name] as { pattern?: unknown } | undefined;
  if (typeof schema?.pattern !== 'string') throw new Error(`the contract has no pattern for the schema ${name}`);
  return new RegExp(schema.pattern, 'u');
}
