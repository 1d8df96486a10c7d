import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import type { OpenAPIV3_1 } from 'openapi-types';

export const CONTRACT_PATH = fileURLToPath(new URL('../../openapi/gateway.yaml', import.meta.url));

let cached: OpenAPIV3_1.Document | undefined;

/** The hand-written contract, parsed once. Callers must not mutate it. */
export function loadContract(): OpenAPIV3_1.Document {
  cached ??= parse(readFileSync(CONTRACT_PATH, 'utf8')) as OpenAPIV3_1.Document;
  return cached;
}

/** A deep copy, for libraries that dereference (and so mutate) what they are given. */
export function contractCopy(): OpenAPIV3_1.Document {
  return structuredClone(loadContract());
}
