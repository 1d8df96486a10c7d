// What the HTTP layers cost per request on their own, in a hot loop: a 302 from node:http, from
// Express, and from Express with the gateway's access log (src/app.ts accessLog: pino-http, the
// production logger writing in batches, to /dev/null) and its security headers (securityHeaders).
// Each server runs in its own process with the image's semi-space size, autocannon (32
// connections) drives it for a warm-up and a measured window, and the server reports its CPU time.
// Run by hand (about two minutes):
//
//   npx node scripts/bench/layers.ts
//
// A hot loop keeps every cache warm: the same code in the gateway, between the operations' work,
// costs several times more (docs/benchmarks.md, "The HTTP layer's share"). Compare the rows
// with each other, not with the bench's.

import { fork } from 'node:child_process';
import { openSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import express, { type RequestHandler } from 'express';
import { accessLog, securityHeaders } from '../../src/app.ts';
import { batchedDestination, createLogger } from '../../src/logger.ts';

const VARIANTS = ['node:http', 'express', 'express + security headers', 'express + access log', 'express + access log + security headers'] as const;
type Variant = (typeof VARIANTS)[number];
const ROUNDS = 3;
const SECONDS = 4;

function serve(variant: Variant): void {
  const redirect = (res: http.ServerResponse) => {
    res.statusCode = 302;
    res.setHeader('Location', 'https://platform.example.test/home');
    res.setHeader('Cache-Control', 'no-store');
    res.end();
  };
  let listener: http.RequestListener;
  if (variant === 'node:http') {
    listener = (_req, res) => redirect(res);
  } else {
    const app = express();
    app.disable('x-powered-by');
    app.set('etag', false);
    app.set('query parser', 'simple');
    const logger = createLogger('info', batchedDestination(openSync('/dev/null', 'w')));
    const layers: RequestHandler[] = [];
    if (variant.includes('access log')) layers.push(accessLog(logger, false));
    if (variant.includes('security headers')) layers.push(securityHeaders(false));
    for (const layer of layers) app.use(layer);
    app.get('/v1/auth/start', (_req, res) => redirect(res));
    listener = app;
  }
  const server = http.createServer(listener).listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as AddressInfo).port }));
  process.on('message', (message) => {
    if (message !== 'cpu') return;
    const usage = process.cpuUsage();
    process.send!({ cpu: usage.user + usage.system });
  });
}

async function measure(variant: Variant): Promise<{ perSecond: number; cpuMicros: number }> {
  const child = fork(fileURLToPath(import.meta.url), [variant], { execArgv: ['--max-semi-space-size=4'] });
  const next = <T>() => new Promise<T>((resolve) => child.once('message', (message) => resolve(message as T)));
  const { port } = await next<{ port: number }>();
  const url = `http://127.0.0.1:${port}/v1/auth/start?platformKey=BENCH&returnTo=https%3A%2F%2Fplatform.example.test%2Fhome`;
  await autocannon({ url, connections: 32, duration: 2 });
  const cpu = async () => (child.send('cpu'), (await next<{ cpu: number }>()).cpu);
  const before = await cpu();
  const result = await autocannon({ url, connections: 32, duration: SECONDS });
  const used = (await cpu()) - before;
  child.kill();
  return { perSecond: result.requests.total / SECONDS, cpuMicros: used / result.requests.total };
}

async function main(): Promise<void> {
  const runs = new Map<Variant, number[]>(VARIANTS.map((variant) => [variant, []]));
  for (let round = 1; round <= ROUNDS; round++) {
    for (const variant of VARIANTS) {
      const { perSecond, cpuMicros } = await measure(variant);
      runs.get(variant)!.push(cpuMicros);
      process.stdout.write(`round ${round}  ${variant.padEnd(42)} ${Math.round(perSecond).toString().padStart(6)} req/s  ${cpuMicros.toFixed(1).padStart(5)} µs CPU/req\n`);
    }
  }
  process.stdout.write('\nmedian CPU per request\n');
  for (const [variant, values] of runs) {
    const median = [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    process.stdout.write(`  ${variant.padEnd(42)} ${median.toFixed(1).padStart(5)} µs\n`);
  }
}

const variant = process.argv[2] as Variant | undefined;
if (variant) serve(variant);
else main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
