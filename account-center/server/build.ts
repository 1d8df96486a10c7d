// Builds the account center's browser app (Vite) when its build is missing or older than its
// sources: used by `npm start` (the dev stack) and the browser tests, so neither serves a
// stale app. `npm run build:account-center` builds unconditionally.
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ACCOUNT_CENTER_DIR = fileURLToPath(new URL('..', import.meta.url));
export const ACCOUNT_CENTER_DIST = path.join(ACCOUNT_CENTER_DIR, 'dist');
const GENERATED_TYPES = fileURLToPath(new URL('../../generated/gateway.ts', import.meta.url));

export async function buildAccountCenter(): Promise<void> {
  const { build } = await import('vite');
  // Always the production bundle: Vite takes NODE_ENV from the environment, and under the test
  // runner (NODE_ENV=test) it would build React's development mode, which mounts everything
  // twice (StrictMode) and is not what people get.
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    await build({ configFile: path.join(ACCOUNT_CENTER_DIR, 'vite.config.ts'), mode: 'production', logLevel: 'warn' });
  } finally {
    if (nodeEnv === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = nodeEnv;
  }
}

export async function ensureAccountCenterBuilt(): Promise<'built' | 'current'> {
  const built = await mtime(path.join(ACCOUNT_CENTER_DIST, 'index.html'));
  const sources = Math.max(await newest(path.join(ACCOUNT_CENTER_DIR, 'src')), await mtime(path.join(ACCOUNT_CENTER_DIR, 'index.html')), await mtime(GENERATED_TYPES));
  if (built !== 0 && built >= sources) return 'current';
  await buildAccountCenter();
  return 'built';
}

async function mtime(file: string): Promise<number> {
  try {
    return (await stat(file)).mtimeMs;
  } catch {
    return 0;
  }
}

async function newest(directory: string): Promise<number> {
  let latest = 0;
  for (const entry of await readdir(directory, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) latest = Math.max(latest, await mtime(path.join(entry.parentPath, entry.name)));
  }
  return latest;
}

if (import.meta.url === `file://${process.argv[1]}`) await buildAccountCenter();
