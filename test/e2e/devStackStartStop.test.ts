// `npm start` as a newcomer runs it (issue 14 §1-§3), in a fresh folder with free ports: the
// published demo credentials printed at start, seeding audited as `devstack`, an admin token
// from the dev provider in one command, a second start refused before it changes anything,
// and a stop by the npm process that leaves nothing running. The folder holds the project's
// files as symlinks, so `.data/` (embedded PostgreSQL, dev users) is the test's own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, symlink } from 'node:fs/promises';
import os from 'node:os';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createDb, type Db } from '../../src/db/knex.ts';
import { embeddedUrl, freePort } from '../../src/db/embedded.ts';
import { portInUse } from '../../src/startupPorts.ts';
import { runCli } from '../../src/cli/run.ts';
import { DEV_PLATFORM_CREDENTIALS } from '../../src/security/devCredentials.ts';
import { DEV_TOTP_SECRETS } from '../../src/devidp/index.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const LINKED = ['package.json', 'package-lock.json', 'node_modules', 'src', 'migrations', 'account-center', 'openapi', 'generated', 'scripts', 'tsconfig.json'];

interface Started {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

describe('npm start: the dev stack from a fresh folder', () => {
  let folder: string;
  let env: Record<string, string>;
  let ports: { gateway: number; idp: number; bff: number; accountCenter: number; postgres: number };
  let first: Started;
  let db: Db | null = null;
  let rotationsAtFirstStart = -1;
  const rotations = async (database: Db) => Number((await database('audit_events').where({ action: 'platform.rotate_credentials' }).count<{ count: number }[]>('* as count'))[0]!.count);
  const gatewayUrl = () => `http://localhost:${ports.gateway}`;

  /** `npm start` in the folder; resolves once the dev stack has announced itself. */
  async function npmStart(extraEnv: Record<string, string> = {}): Promise<Started> {
    const child = spawn('npm', ['start'], { cwd: folder, env: { ...env, ...extraEnv }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    await Promise.race([
      new Promise<void>((resolve) => {
        const check = () => (output.includes('dev stack ready') ? resolve() : setTimeout(check, 100));
        check();
      }),
      exited.then((code) => {
        throw new Error(`npm start exited (${code}) before the dev stack was ready:\n${output}`);
      }),
    ]);
    return { child, output: () => output, exited };
  }

  /**
   * Every process of the stack is gone: its ports are free and the postmaster no longer runs.
   * Within 60 s: a stop that hangs ends by design after 20 s (src/main.ts), and then the
   * watchdog stops PostgreSQL, whose shutdown checkpoint takes seconds on a loaded machine.
   */
  async function expectNothingLeft(postmasterPid: number, bffPort: number, stopped: Started) {
    try {
      await expect.poll(() => alive(postmasterPid), { timeout: 60_000, interval: 200, message: 'the postmaster still runs' }).toBe(false);
      for (const port of [ports.gateway, ports.idp, bffPort, ports.accountCenter, ports.postgres]) {
        await expect.poll(() => portInUse(port), { timeout: 60_000, interval: 200, message: `port ${port} is still in use` }).toBe(false);
      }
    } catch (error) {
      // What the stack said while stopping tells where it hung.
      throw new Error(`${(error as Error).message}; the stack's output ended with:\n${stopped.output().slice(-3000)}`, { cause: error });
    }
  }

  const postmasterPid = () => Number(readFileSync(path.join(folder, '.data/postgres/postmaster.pid'), 'utf8').split('\n')[0]);
  const openDb = () =>
    createDb(embeddedUrl(readFileSync(path.join(folder, '.data/postgres.password'), 'utf8').trim(), ports.postgres, 'gateway'), { poolMax: 1 });

  beforeAll(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), 'gateway-devstack-'));
    for (const entry of LINKED) await symlink(path.join(ROOT, entry), path.join(folder, entry));
    ports = { gateway: await freePort(), idp: await freePort(), bff: await freePort(), accountCenter: await freePort(), postgres: await freePort() };
    env = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? os.tmpdir(),
      NODE_ENV: 'development',
      LOG_LEVEL: 'info',
      PORT: String(ports.gateway),
      DEV_IDP_PORT: String(ports.idp),
      DEMO_BFF_PORT: String(ports.bff),
      ACCOUNT_CENTER_URL: `http://localhost:${ports.accountCenter}`,
      EMBEDDED_POSTGRES_PORT: String(ports.postgres),
    };
    first = await npmStart();
    db = openDb();
  }, 120_000);

  afterAll(async () => {
    await db?.destroy();
    if (first && first.child.exitCode === null) first.child.kill('SIGTERM');
    if (folder && existsSync(path.join(folder, '.data/postgres/postmaster.pid'))) {
      try {
        process.kill(postmasterPid(), 'SIGINT');
      } catch {
        // already gone
      }
    }
    if (folder) await rm(folder, { recursive: true, force: true });
  }, 60_000);

  it('prints the published demo credentials, the URLs and the users', () => {
    const demo = DEV_PLATFORM_CREDENTIALS.DEMO_PLATFORM!;
    const text = first.output();
    expect(text).toContain(demo.clientId);
    expect(text).toContain(demo.clientSecret);
    expect(text).toContain(`http://localhost:${ports.bff}/`);
    expect(text).toContain(`http://localhost:${ports.accountCenter}/`);
    expect(text).toContain('alice / alice-password');
    expect(text).toContain('admin / admin-password');
    expect(text).toContain('dev token --user admin');
    // The demo users' second factor: their seeded TOTP secrets, as otpauth:// URIs.
    expect(text).toContain(`otpauth://totp/Dev%20IdP%3Aalice?secret=${DEV_TOTP_SECRETS['dev-user-alice']}`);
  });

  it('the gateway and the example BFF listen on loopback only (their demo credentials are published)', async () => {
    const reachable = (host: string, port: number) =>
      new Promise<boolean>((resolve) => {
        const socket = net.connect({ host, port, timeout: 2000 });
        socket.once('connect', () => (socket.destroy(), resolve(true)));
        socket.once('error', () => resolve(false));
        socket.once('timeout', () => (socket.destroy(), resolve(false)));
      });
    for (const port of [ports.gateway, ports.bff]) expect(await reachable('127.0.0.1', port)).toBe(true);
    // This machine's own non-loopback addresses (a container's eth0, a LAN address), when it has one.
    const external = Object.values(os.networkInterfaces()).flat().find((entry) => entry && !entry.internal && entry.family === 'IPv4');
    if (!external) return;
    for (const port of [ports.gateway, ports.bff]) expect({ port, reachable: await reachable(external.address, port) }).toEqual({ port, reachable: false });
  });

  it('seeds the demo platforms with the published credentials, audited as devstack', async () => {
    const rows = await db!('platforms').whereIn('platform_key', ['DEMO_PLATFORM', 'DEMO_CENTRAL', 'ACCOUNT_CENTER']).select('platform_key', 'client_id', 'callback_url');
    expect(Object.fromEntries(rows.map((row) => [row.platform_key, row.client_id]))).toEqual({
      DEMO_PLATFORM: DEV_PLATFORM_CREDENTIALS.DEMO_PLATFORM!.clientId,
      DEMO_CENTRAL: DEV_PLATFORM_CREDENTIALS.DEMO_CENTRAL!.clientId,
      ACCOUNT_CENTER: DEV_PLATFORM_CREDENTIALS.ACCOUNT_CENTER!.clientId,
    });
    // The central demo has terms and a privacy notice, published (issue 25).
    const documents = await db!('platform_documents as d').join('platforms as p', 'p.id', 'd.platform_id').join('document_versions as v', 'v.document_id', 'd.id')
      .where('p.platform_key', 'DEMO_CENTRAL').whereNotNull('v.published_at').orderBy('d.document_key').pluck('d.document_key');
    expect(documents).toEqual(['privacy', 'terms']);
    const actors = await db!('audit_events').distinct('actor_type').pluck('actor_type');
    expect(actors).toEqual(['devstack']);
    // The demo platforms keep requiring the handoff challenge (their back ends send one).
    const required = await db!('platforms').whereIn('platform_key', ['DEMO_PLATFORM', 'DEMO_CENTRAL', 'ACCOUNT_CENTER']).pluck('handoff_challenge_required');
    expect(required).toEqual([true, true, true]);
    rotationsAtFirstStart = await rotations(db!);
    // The published secret works at this gateway: a made-up code is refused as a code, not as credentials.
    const demo = DEV_PLATFORM_CREDENTIALS.DEMO_PLATFORM!;
    const response = await fetch(`${gatewayUrl()}/v1/auth/exchange`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Basic ${Buffer.from(`${demo.clientId}:${demo.clientSecret}`).toString('base64')}` },
      body: JSON.stringify({ code: `handoff_${'A'.repeat(43)}` }),
    });
    expect(((await response.json()) as { code: string }).code).toBe('HANDOFF_CODE_INVALID');
  });

  it('dev token prints an access token the dev provider issued, accepted for the admin API', async () => {
    const out: string[] = [];
    const err: string[] = [];
    const io = { stdout: (text: string) => out.push(text), stderr: (text: string) => err.push(text), env };
    expect(await runCli(['dev', 'token', '--user', 'admin'], io), err.join('')).toBe(0);
    const token = out.join('').trim();
    expect(token.split('.')).toHaveLength(3);
    const platforms = await fetch(`${gatewayUrl()}/v1/platforms`, { headers: { Authorization: `Bearer ${token}` } });
    expect(platforms.status).toBe(200);
    const keys = ((await platforms.json()) as { items: Array<{ platformKey: string }> }).items.map((item) => item.platformKey);
    expect(keys).toContain('DEMO_PLATFORM');

    // alice's token is real too, but she holds no admin permission.
    const alice: string[] = [];
    expect(await runCli(['dev', 'token', '--user', 'alice'], { ...io, stdout: (text: string) => alice.push(text) })).toBe(0);
    expect((await fetch(`${gatewayUrl()}/v1/platforms`, { headers: { Authorization: `Bearer ${alice.join('').trim()}` } })).status).toBe(403);

    // A wrong password is refused by the provider's login page.
    const wrong: string[] = [];
    expect(await runCli(['dev', 'token', '--user', 'admin', '--password', 'nope'], { ...io, stderr: (text: string) => wrong.push(text) })).toBe(1);
    expect(wrong.join('')).toContain('invalid username or password');
  });

  it('dev token refuses outside development, with a clear message (exit 78)', async () => {
    for (const extra of [{ NODE_ENV: 'production' }, { OIDC_ISSUER: 'https://idp.example.com', OIDC_CLIENT_ID: 'x', OIDC_CLIENT_SECRET: 'y', ENCRYPTION_KEYS: 'k' }]) {
      const err: string[] = [];
      const out: string[] = [];
      const code = await runCli(['dev', 'token', '--user', 'admin'], { stdout: (text) => out.push(text), stderr: (text) => err.push(text), env: { ...env, ...extra } });
      expect(code, err.join('')).toBe(78);
      expect(err.join('')).toContain('dev token is development only');
      expect(out.join('')).toBe('');
    }
  });

  it('a second npm start names the busy port and its variable, and changes nothing', async () => {
    const auditBefore = await db!('audit_events').count<{ count: number }[]>('* as count');
    const second = spawn('npm', ['start'], { cwd: folder, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    second.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    second.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => second.once('exit', (exitCode) => resolve(exitCode)));
    expect(code).not.toBe(0);
    expect(output).toContain(`port ${ports.gateway} is already in use (PORT`);
    expect(output).toContain(`port ${ports.bff} is already in use (DEMO_BFF_PORT`);
    expect(output).toContain('Is another auth-gateway running');
    expect(output).not.toContain('database migrated');
    // Nothing seeded or rotated, and the first one still serves, with the same credentials.
    expect(await db!('audit_events').count<{ count: number }[]>('* as count')).toEqual(auditBefore);
    expect((await fetch(`${gatewayUrl()}/health/live`)).status).toBe(200);
    expect((await fetch(`http://localhost:${ports.bff}/`)).status).toBe(200);
  });

  it('kill -TERM on the npm process stops node and the embedded PostgreSQL', async () => {
    const postmaster = postmasterPid();
    expect(alive(postmaster)).toBe(true);
    await db!.destroy();
    db = null;
    first.child.kill('SIGTERM'); // the npm process itself
    await first.exited;
    await expectNothingLeft(postmaster, ports.bff, first);
    expect(first.output()).toContain('"msg":"stopped"');
  }, 120_000);

  it('the next start moves the demo platforms to another DEMO_BFF_PORT, keeping their credentials', async () => {
    const bffPort = await freePort();
    const again = await npmStart({ DEMO_BFF_PORT: String(bffPort) });
    try {
      db = openDb();
      const demo = await db('platforms').where({ platform_key: 'DEMO_PLATFORM' }).first('callback_url', 'allowed_return_urls', 'backchannel_logout_url', 'client_id');
      expect(demo).toMatchObject({
        callback_url: `http://localhost:${bffPort}/auth/callback`,
        allowed_return_urls: [`http://localhost:${bffPort}/`],
        backchannel_logout_url: `http://localhost:${bffPort}/backchannel-logout`,
        client_id: DEV_PLATFORM_CREDENTIALS.DEMO_PLATFORM!.clientId,
      });
      expect(await rotations(db)).toBe(rotationsAtFirstStart); // the published secret stays: nothing rotated
      expect(again.output()).toContain(`http://localhost:${bffPort}/`);
      await db.destroy();
      db = null;
    } finally {
      const postmaster = postmasterPid();
      again.child.kill('SIGTERM');
      await again.exited;
      await expectNothingLeft(postmaster, bffPort, again);
    }
  }, 120_000);

  it('if node dies unannounced (kill -9), the embedded PostgreSQL does not outlive it', async () => {
    const again = await npmStart();
    const postmaster = postmasterPid();
    // The postmaster's parent is node (embedded-postgres spawned it).
    const node = Number(readFileSync(`/proc/${postmaster}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
    expect(readFileSync(`/proc/${node}/cmdline`, 'utf8')).toContain('src/main.ts');
    process.kill(node, 'SIGKILL');
    await again.exited;
    await expectNothingLeft(postmaster, ports.bff, again);
  }, 120_000);
  it('node orphaned while it is still starting (npm gone before the stack is up) stops by itself once it is up', async () => {
    // The shell plays npm: it starts node and is killed as soon as node has begun, well before
    // the stack is up and its shutdown handling installed, so node is adopted mid-start. Node
    // used to read its parent's pid only then (pid 1 by that time), never saw it change, and
    // ran on with every port bound (twice under the full suite's load).
    const shell = spawn('/bin/sh', ['-c', '"$0" src/main.ts & echo "node-pid $!"; wait', process.execPath], {
      cwd: folder,
      env: { ...env, npm_lifecycle_event: 'start' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    shell.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    shell.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    let nodePid = 0;
    try {
      await expect.poll(() => output.includes('"msg":"starting auth-gateway"'), { timeout: 60_000, interval: 50 }).toBe(true);
      nodePid = Number(/node-pid (\d+)/.exec(output)?.[1]);
      expect(output).not.toContain('dev stack ready');
      shell.kill('SIGKILL');
      await expect.poll(() => output.includes('"msg":"stopped"'), { timeout: 90_000, interval: 200, message: 'node did not stop' }).toBe(true);
      await expect.poll(() => alive(nodePid), { timeout: 30_000, interval: 200 }).toBe(false);
      expect(output).toContain('"signal":"parent exited"');
      for (const port of [ports.gateway, ports.idp, ports.bff, ports.accountCenter, ports.postgres]) {
        await expect.poll(() => portInUse(port), { timeout: 30_000, interval: 200, message: `port ${port} is still in use` }).toBe(false);
      }
    } finally {
      if (nodePid > 0 && alive(nodePid)) process.kill(nodePid, 'SIGKILL');
    }
  }, 180_000);
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
