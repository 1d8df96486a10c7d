import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import type { OpenAPIV3_1 } from 'openapi-types';

export const CONTRACT_PATH = fileURLToPath(new URL('../../openapi/gateway.yaml', import.meta.url));

/**
 * The contract as JSON text, parsed from the YAML once. Only this text (about 150 kB) is
 * kept: each caller gets its own document from it and drops it once done, so the process
 * does not hold a parsed copy next to the one openapi-backend dereferences (docs/benchmarks.md,
 * "Memory"). JSON.parse of the text is also cheaper than parsing the YAML or a structuredClone.
 */
let text: string | undefined;

function contractText(): string {
  text ??= JSON.stringify(parse(readFileSync(CONTRACT_PATH, 'utf8')));
  return text;
}

/** The hand-written contract: a fresh document on each call, the caller's to keep or change. */
export function loadContract(): OpenAPIV3_1.Document {
  return JSON.parse(contractText()) as OpenAPIV3_1.Document;
}

/** A document of its own, for libraries that dereference (and so mutate) what they are given. */
export function contractCopy(): OpenAPIV3_1.Document {
  return loadContract();
}
