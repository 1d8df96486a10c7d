// The gateway compiled to JavaScript into a folder of its own, as the production image's
// gateway-build stage does it (tsconfig.build.json): for the tests that rebuild the image's
// file set and for the benchmark, which measure what production runs.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

/**
 * Compiles what tsconfig.build.json includes (and `extraEntries`, files from the repository
 * root) into `outDir`, mirroring the tree: `<outDir>/src/main.js`, … Throws with the
 * compiler's output when it fails. `root`: another checkout of the repository to compile
 * (the benchmark's `--compare`), this one by default.
 */
export function buildGateway(outDir: string, extraEntries: readonly string[] = [], root: string = ROOT): void {
  mkdirSync(outDir, { recursive: true });
  const config = path.join(outDir, 'tsconfig.json');
  writeFileSync(
    config,
    JSON.stringify({
      extends: path.join(root, 'tsconfig.build.json'),
      // Paths in a config are relative to it: everything here is absolute, the types included.
      // `include` is inherited (resolved against tsconfig.build.json); `files` adds to it.
      compilerOptions: { outDir, rootDir: root, typeRoots: [path.join(root, 'node_modules/@types')] },
      ...(extraEntries.length > 0 ? { files: extraEntries.map((entry) => path.join(root, entry)) } : {}),
    }),
  );
  const compiled = spawnSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', config], { encoding: 'utf8' });
  if (compiled.status !== 0) throw new Error(`tsc -p tsconfig.build.json failed:\n${compiled.stdout}${compiled.stderr}`);
}
