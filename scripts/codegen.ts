/**
 * Writes generated/gateway.ts from openapi/gateway.yaml with openapi-typescript.
 * `--check` exits 1 when the committed file is stale (CI and a test use it).
 */
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { generateTypes, GENERATED_PATH } from './codegenLib.ts';

const check = process.argv.includes('--check');
const fresh = await generateTypes();
if (check) {
  const current = await readFile(GENERATED_PATH, 'utf8').catch(() => '');
  if (current !== fresh) {
    process.stderr.write('generated/gateway.ts is stale: run `npm run codegen` and commit the result\n');
    process.exit(1);
  }
  process.stdout.write('generated/gateway.ts is current\n');
} else {
  await mkdir(new URL('../generated/', import.meta.url), { recursive: true });
  await writeFile(GENERATED_PATH, fresh);
  process.stdout.write(`wrote ${GENERATED_PATH}\n`);
}
