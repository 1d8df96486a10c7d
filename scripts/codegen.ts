/**
 * Writes, from openapi/gateway.yaml, generated/gateway.ts (its types, with openapi-typescript;
 * the platform kit reads them too, and its build ships them) and generated/gateway.json (the
 * contract the gateway reads at boot).
 * `--check` exits 1 when a committed file is stale (CI and a test use it).
 */
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { dirname, relative } from 'node:path';
import { CONTRACT_JSON_PATH, generateContractJson, generateTypes, GENERATED_PATH } from './codegenLib.ts';

const check = process.argv.includes('--check');
const types = await generateTypes();
const files: [path: string, content: string][] = [
  [GENERATED_PATH, types],
  [CONTRACT_JSON_PATH, await generateContractJson()],
];
let stale = false;
for (const [path, fresh] of files) {
  const name = relative(process.cwd(), path);
  if (check) {
    const current = await readFile(path, 'utf8').catch(() => '');
    if (current !== fresh) {
      process.stderr.write(`${name} is stale: run \`npm run codegen\` and commit the result\n`);
      stale = true;
    } else {
      process.stdout.write(`${name} is current\n`);
    }
  } else {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, fresh);
    process.stdout.write(`wrote ${name}\n`);
  }
}
if (stale) process.exit(1);
