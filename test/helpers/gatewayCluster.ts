// Several gateway instances on one PostgreSQL database, behind the test load balancer
// (test/helpers/loadBalancer.ts), with the dev identity provider: what an operator runs.
//
// Each instance is a child process running the service itself (`node src/main.ts`), as in
// production: its own pool, relying party, purge schedule and back-channel worker, a real
// SIGTERM (main.ts: drain, then close the pool) and a real exit. In-process instances were
// tried first: they boot faster, but they share one event loop, so the seconds an instance
// spends compiling its contract at boot stall the other instance's provider calls, a coupling
// no two real instances have (it failed logins with IDP_UNAVAILABLE during a restart).
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { tmpdir } from 'node:os';
import { randomBytes } from 'node:crypto';
import { createDb, type Db } from '../../src/db/knex.ts';
import { freePort } from '../../src/db/embedded.ts';
import { generateKeyRingSpec } from '../../src/security/crypto.ts';
import { generateSigningKeySpec } from '../../src/security/signingKeys.ts';
import { startDevIdp, PERMISSION_SCOPES, type DevIdp } from '../../src/devidp/index.ts';
import { createPlatform } from '../../src/services/registry/index.ts';
import { startLoadBalancer, type LoadBalancer } from './loadBalancer.ts';
import { OidcBrowser, basicAuth, type BrowserResponse } from './oidcBrowser.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

export const PLATFORM_CALLBACK = 'https://bff.example.test/auth/callback';
export const PLATFORM_ROOT = 'https://bff.example.test/';

export interface Instance {
  name: string;
  port: number;
  url: string;
  /** How many times it was started (1 for the first boot). */
  generation: number;
  /** Its log so far (stdout and stderr of every generation). */
  readonly output: string;
  /** SIGTERM, and resolves with the exit code once the process has exited. */
  stop(): Promise<number | null>;
  /** Starts the process and resolves once its readiness answers 200. */
  start(): Promise<void>;
}

export interface Cluster {
  lb: LoadBalancer;
  idp: DevIdp;
  instances: Instance[];
  /** The test's own access to the database. */
  db: Db;
  close(): Promise<void>;
}

export async function startCluster(options: { databaseUrl: string; names?: string[]; env?: Record<string, string>; healthIntervalMs?: number }): Promise<Cluster> {
  const names = options.names ?? ['A', 'B'];
  const ports = await Promise.all(names.map(() => freePort()));
  const lb = await startLoadBalancer(names.map((name, i) => ({ name, port: ports[i]! })), { healthIntervalMs: options.healthIntervalMs ?? 100 });
  const clientId = 'gateway-cluster';
  const clientSecret = randomBytes(24).toString('base64url');
  const idp = await startDevIdp({
    port: 0,
    clients: [{ clientId, clientSecret, redirectUris: [`${lb.url}/v1/auth/callback`], postLogoutRedirectUris: [`${lb.url}/v1/auth/logged-out`] }],
  });
  // What every instance must share: the public URL (the balancer's), the key rings, the client.
  const shared = {
    PATH: process.env.PATH ?? '',
    // Boots after the first reuse Node's compiled code (restarts, later runs): seconds on two cores.
    NODE_COMPILE_CACHE: path.join(tmpdir(), 'auth-gateway-test-node-compile-cache'),
    NODE_ENV: 'development',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL && process.env.TEST_LOG_LEVEL !== 'silent' ? process.env.TEST_LOG_LEVEL : 'warn',
    DATABASE_URL: options.databaseUrl,
    PUBLIC_BASE_URL: lb.url,
    ACCOUNT_CENTER_URL: 'http://account.test',
    ENCRYPTION_KEYS: generateKeyRingSpec('cluster'),
    GATEWAY_SIGNING_KEYS: generateSigningKeySpec('cluster'),
    OIDC_ISSUER: idp.issuer,
    OIDC_CLIENT_ID: clientId,
    OIDC_CLIENT_SECRET: clientSecret,
    OIDC_SCOPES: ['openid', 'profile', 'email', ...PERMISSION_SCOPES].join(' '),
    // Every request of the test comes from 127.0.0.1: per-IP limits would throttle the load.
    RATE_LIMIT_START_PER_MINUTE: '100000',
    RATE_LIMIT_CALLBACK_PER_MINUTE: '100000',
    ...options.env,
  };

  const instances = names.map((name, i): Instance => {
    const port = ports[i]!;
    let child: ChildProcess | null = null;
    let exited: Promise<number | null> = Promise.resolve(null);
    let output = '';
    const instance: Instance = {
      name,
      port,
      url: `http://127.0.0.1:${port}`,
      generation: 0,
      get output() {
        return output;
      },
      async start() {
        const started = spawn(process.execPath, ['src/main.ts'], { cwd: ROOT, env: { ...shared, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
        child = started;
        started.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
        started.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
        exited = new Promise((resolve) => started.once('exit', (code) => resolve(code)));
        instance.generation++;
        for (;;) {
          if (started.exitCode !== null) throw new Error(`instance ${name} exited with ${started.exitCode} while booting:\n${output}`);
          const ready = await fetch(`${instance.url}/health/ready`).then((res) => res.status === 200, () => false);
          if (ready) return;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      },
      async stop() {
        if (!child || child.exitCode !== null) return child?.exitCode ?? null;
        child.kill('SIGTERM');
        const guard = setTimeout(() => child?.kill('SIGKILL'), 20_000);
        const code = await exited;
        clearTimeout(guard);
        return code;
      },
    };
    return instance;
  });
  const db = createDb(options.databaseUrl, { poolMax: 2 });
  const cluster: Cluster = {
    lb,
    idp,
    instances,
    db,
    async close() {
      await Promise.all(instances.map((instance) => instance.stop()));
      await lb.close();
      await idp.close();
      await db.destroy();
    },
  };
  try {
    await Promise.all(instances.map((instance) => instance.start()));
  } catch (error) {
    await cluster.close();
    throw error;
  }
  return cluster;
}

export interface ClusterPlatform {
  key: string;
  clientId: string;
  basic: string;
}

let platformCounter = 0;

export async function addClusterPlatform(db: Db): Promise<ClusterPlatform> {
  const key = `MULTI_${++platformCounter}_${randomBytes(3).toString('hex').toUpperCase()}`;
  const created = await createPlatform(
    db,
    { platformKey: key, displayName: `Platform ${key}`, callbackUrl: PLATFORM_CALLBACK, allowedReturnUrls: [PLATFORM_ROOT], defaultOnboardingMode: 'none', centralOnboardingEnabled: true, handoffChallengeRequired: false },
    { type: 'cli', userId: null, sub: null, requestId: null },
  );
  return { key, clientId: created.platform.clientId!, basic: basicAuth(created.platform.clientId!, created.clientSecret) };
}

export const ALICE = { username: 'alice', password: 'alice-password' };

/** The browser up to the gateway's callback: start (through `baseUrl`), the IdP's login page, signed in; the callback URL is not requested. */
export async function signInUpToCallback(baseUrl: string, platformKey: string, browser = new OidcBrowser()): Promise<{ browser: OidcBrowser; callbackUrl: string; start: BrowserResponse }> {
  const startUrl = new URL('/v1/auth/start', baseUrl);
  startUrl.searchParams.set('platformKey', platformKey);
  startUrl.searchParams.set('returnTo', `${PLATFORM_ROOT}home`);
  const start = await browser.get(startUrl.href);
  if (start.status !== 302) throw new LoginStepError('start', start.status, start.text);
  const toLoginPage = await browser.followRedirects(start, { maxHops: 10 });
  const afterLogin = await browser.loginAtDevIdp(toLoginPage.response, ALICE.username, ALICE.password);
  const atCallback = (url: string) => url.startsWith(`${baseUrl}/v1/auth/callback`);
  const followed = await browser.followRedirects(afterLogin, { stopWhen: atCallback, maxHops: 10 });
  if (!followed.stoppedAt) throw new LoginStepError('provider', followed.response.status, followed.response.text);
  return { browser, callbackUrl: followed.stoppedAt, start };
}

export class LoginStepError extends Error {
  readonly step: 'start' | 'provider' | 'callback' | 'exchange';
  readonly status: number;

  constructor(step: LoginStepError['step'], status: number, body: string) {
    super(`${step} answered ${status}: ${body.slice(0, 200)}`);
    this.step = step;
    this.status = status;
  }
}

/** The handoff code in the platform callback URL the gateway redirected to, or null. */
export function handoffCodeOf(callback: BrowserResponse): string | null {
  if (callback.status !== 302 || !callback.location?.startsWith(PLATFORM_CALLBACK)) return null;
  return new URL(callback.location).searchParams.get('code');
}

/** The BFF's exchange, as it would send it (through `baseUrl`). */
export async function exchange(baseUrl: string, platform: ClusterPlatform, code: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${baseUrl}/v1/auth/exchange`, {
    method: 'POST',
    headers: { authorization: platform.basic, 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ code }),
  });
  const text = await res.text();
  return { status: res.status, body: text.startsWith('{') ? (JSON.parse(text) as Record<string, unknown>) : { text } };
}

export interface CompletedLogin {
  sessionId: string;
  code: string;
}

/** A whole login through the balancer: browser to the platform callback, then the BFF's exchange. Throws LoginStepError on any refusal. */
export async function fullLogin(cluster: Pick<Cluster, 'lb' | 'idp'>, platform: ClusterPlatform): Promise<CompletedLogin> {
  const { browser, callbackUrl } = await signInUpToCallback(cluster.lb.url, platform.key);
  const callback = await browser.get(callbackUrl);
  const code = handoffCodeOf(callback);
  if (!code) throw new LoginStepError('callback', callback.status, callback.text);
  const exchanged = await exchange(cluster.lb.url, platform, code);
  if (exchanged.status !== 200) throw new LoginStepError('exchange', exchanged.status, JSON.stringify(exchanged.body));
  return { sessionId: (exchanged.body.session as { id: string }).id, code };
}
