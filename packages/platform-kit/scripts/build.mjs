// `npm run build` (and `npm pack`, through prepack): dist/ from src/ with the TypeScript compiler
// of the repository this folder lives in (the kit has no development dependencies of its own).
// The sources are compiled from a staging copy in which src/gateway.ts (in the repository a
// re-export of generated/gateway.ts) is the generated file itself: the package then ships the
// contract's types as dist/gateway.d.ts instead of pointing outside its folder.
// The sources import each other as ./x.ts; the compiler rewrites that to ./x.js in the
// JavaScript but not in the declarations, which are rewritten here, so that a project that
// installs the package resolves them without allowImportingTsExtensions.
import { copyFileSync, cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('..', import.meta.url));
const dist = fileURLToPath(new URL('../dist/', import.meta.url));
// Inside the kit's folder, so that the compiler finds the repository's node_modules (@types/node, jose, openapi-fetch).
const stage = fileURLToPath(new URL('../.build/', import.meta.url));
rmSync(dist, { recursive: true, force: true });
rmSync(stage, { recursive: true, force: true });
cpSync(`${here}src`, `${stage}src`, { recursive: true });
copyFileSync(fileURLToPath(new URL('../../../generated/gateway.ts', import.meta.url)), `${stage}src/gateway.ts`);
writeFileSync(`${stage}tsconfig.json`, JSON.stringify({ extends: '../tsconfig.json', compilerOptions: { rootDir: 'src', outDir: '../dist' }, include: ['src'] }));
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const result = spawnSync(process.execPath, [tsc, '-p', `${stage}tsconfig.json`], { cwd: here, stdio: 'inherit' });
rmSync(stage, { recursive: true, force: true });
if (result.status !== 0) process.exit(result.status ?? 1);
for (const file of readdirSync(dist).filter((name) => name.endsWith('.d.ts'))) {
  const text = readFileSync(dist + file, 'utf8');
  writeFileSync(dist + file, text.replace(/(['"])(\.\.?\/[^'"]+)\.ts\1/g, '$1$2.js$1'));
}
