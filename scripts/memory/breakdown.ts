// `node --expose-gc scripts/memory/breakdown.ts`: where the gateway's memory at boot goes.
// Loads the production dependencies one at a time, then the gateway's own modules, the
// contract, and builds the app exactly as src/main.ts does in production (no database
// round trip: knex connects lazily), printing after each step, after a full GC, the RSS
// (anonymous and file-backed, /proc/self/status), the V8 heap and the memory outside it.
// Method and figures: docs/benchmarks.md, "Memory".
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');

const MB = (bytes: number) => (bytes / 1048576).toFixed(1).padStart(6);
function status(field: string): number {
  const line = readFileSync('/proc/self/status', 'utf8').split('\n').find((l) => l.startsWith(field + ':'));
  return line ? Number(line.split(/\s+/)[1]) * 1024 : 0;
}
let previous = 0;
function report(step: string): void {
  gc!();
  const m = process.memoryUsage();
  const rss = status('VmRSS');
  console.log(
    `${step.padEnd(42)} rss ${MB(rss)} (${rss - previous >= 0 ? '+' : ''}${MB(rss - previous).trim()})  anon ${MB(status('RssAnon'))}  file ${MB(status('RssFile'))}  heapUsed ${MB(m.heapUsed)}  heapTotal ${MB(m.heapTotal)}  external ${MB(m.external)}  arrayBuffers ${MB(m.arrayBuffers)}`,
  );
  previous = rss;
}

report('node + this script');
const only = process.argv.includes('--app-only');
if (!only) {
  for (const name of ['express', 'helmet', 'pino', 'pino-http', 'pg', 'knex', 'prom-client', 'ajv/dist/2020.js', 'ajv-formats', 'openapi-backend', 'jose', 'openid-client', 'graphile-worker', 'libphonenumber-js', 'i18n-iso-countries', 'rate-limiter-flexible', 'cookie', 'cors']) {
    await import(name);
    report(`import ${name}`);
  }
  if (process.argv.includes('--avatars')) {
    await import('@aws-sdk/client-s3');
    report('import @aws-sdk/client-s3');
    await import('@aws-sdk/s3-request-presigner');
    report('import @aws-sdk/s3-request-presigner');
    await import('sharp');
    report('import sharp');
  }
}
const { loadConfig } = await import('../../src/config/index.ts');
const { createLogger } = await import('../../src/logger.ts');
const { createDb } = await import('../../src/db/knex.ts');
const { parseKeyRing, generateKeyRingSpec } = await import('../../src/security/crypto.ts');
const { relyingPartyFromConfig } = await import('../../src/oidc/relyingParty.ts');
const { createMetrics } = await import('../../src/observability/metrics.ts');
const { createApp } = await import('../../src/app.ts');
report('import the gateway (src/app.ts and below)');
const { loadContract } = await import('../../src/contract.ts');
loadContract();
report('contract read (generated/gateway.json)');

const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const config = loadConfig({
  NODE_ENV: 'production',
  DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
  ENCRYPTION_KEYS: generateKeyRingSpec('memory'),
  GATEWAY_SIGNING_KEYS: `k1:${privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64url')}`,
  PUBLIC_BASE_URL: 'https://auth.example.com',
  ACCOUNT_CENTER_URL: 'https://account.example.com',
  OIDC_ISSUER: 'https://idp.example.com',
  OIDC_CLIENT_ID: 'gateway',
  OIDC_CLIENT_SECRET: 'secret',
  LOG_LEVEL: 'silent',
});
const logger = createLogger('silent');
const db = createDb(config.databaseUrl!);
const deps = { config, db, logger, keyRing: parseKeyRing(config.encryptionKeys!), oidc: relyingPartyFromConfig(config, logger), idpAccounts: null, metrics: createMetrics({ db, processMetrics: true }), redis: null, tracing: null };
const t0 = performance.now();
await createApp(deps as never);
const built = performance.now() - t0;
report(`createApp (production config)`);
console.log(`createApp took ${built.toFixed(0)} ms`);
const { getHeapSpaceStatistics } = await import('node:v8');
console.log('V8 heap spaces (size / used MB):', getHeapSpaceStatistics().map((s) => `${s.space_name} ${MB(s.space_size).trim()}/${MB(s.space_used_size).trim()}`).join(', '));
const loaded = Object.keys((await import('node:module')).createRequire(import.meta.url).cache);
const packages = new Set(loaded.map((file) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file)?.[1]).filter(Boolean));
console.log(`CommonJS modules loaded: ${loaded.length} files from ${packages.size} packages`);
if (process.argv.includes('--heap-snapshot')) {
  const { writeHeapSnapshot } = await import('node:v8');
  console.log('heap snapshot:', writeHeapSnapshot());
}
await db.destroy();
process.exit(0);
