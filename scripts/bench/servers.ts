// Set-up of the benchmark's processes: the gateway build, the child processes, their memory.
import { execFileSync, fork } from 'node:child_process';
import { copyFile, mkdir, readFile, symlink } from 'node:fs/promises';
import path from 'node:path';
import { buildGateway } from '../buildLib.ts';
import type { DriverMessage, GcTotals, ServerMessage, ServerSettings } from './protocol.ts';
import type { ProviderSettings } from './provider.ts';
import { HERE, ROOT, SETTINGS, type Server, type Side } from './settings.ts';

// ---------------------------------------------------------------- set-up

/**
 * The gateway as the production image runs it: compiled to JavaScript (tsconfig.build.json,
 * the Dockerfile's gateway-build stage) with its benchmark entry, in the run's folder, beside
 * the contract JSON and package.json it reads, with this checkout's node_modules linked in.
 * `root`: the checkout to build (`--compare` builds a second one, compare.ts). Returns the entry to fork.
 */
export async function buildGatewayForBench(folder: string, root: string = ROOT): Promise<string> {
  buildGateway(folder, ['scripts/bench/gateway.ts'], root);
  await mkdir(path.join(folder, 'generated'), { recursive: true });
  await copyFile(path.join(root, 'generated/gateway.json'), path.join(folder, 'generated/gateway.json'));
  await copyFile(path.join(root, 'package.json'), path.join(folder, 'package.json'));
  await symlink(path.join(ROOT, 'node_modules'), path.join(folder, 'node_modules'));
  return path.join(folder, 'scripts/bench/gateway.js');
}

export async function startServer(side: Side, settings: ServerSettings, script: string, runtimeEnv?: Record<string, string>): Promise<Server> {
  return startChild(side, 'BENCH_SERVER_SETTINGS', settings, script, runtimeEnv);
}

/** The provider of the run, in its own process (its CPU is not the servers'), over https. */
export async function startProvider(settings: ProviderSettings): Promise<Server> {
  const server = await startChild('provider', 'BENCH_PROVIDER_SETTINGS', settings);
  return { ...server, baseUrl: server.baseUrl.replace(/^http:/, 'https:') };
}

/**
 * A self-signed certificate for the provider on 127.0.0.1 (ECDSA P-256, one day), made with
 * Debian's openssl: the servers trust it through NODE_EXTRA_CA_CERTS, the driver through its
 * agent's `ca`. Returns the PEM files.
 */
export function makeProviderCertificate(folder: string): { cert: string; key: string } {
  const files = { cert: path.join(folder, 'provider-cert.pem'), key: path.join(folder, 'provider-key.pem') };
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1',
    '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', files.key, '-out', files.cert,
  ], { stdio: 'ignore' });
  return files;
}

/**
 * The runtime settings of the production image (the Dockerfile's `ENV NODE_OPTIONS=… MALLOC_ARENA_MAX=…`
 * line): the gateway runs with them, so its CPU and memory are those of production. `--compare`
 * runs the other build with its own Dockerfile's, so a change to them is measured too.
 */
export async function imageRuntimeEnv(dockerfilePath = path.join(HERE, '../../Dockerfile')): Promise<Record<string, string>> {
  const dockerfile = await readFile(dockerfilePath, 'utf8');
  const line = /^ENV (NODE_OPTIONS=.*)$/m.exec(dockerfile)?.[1];
  if (!line) throw new Error('the Dockerfile has no ENV NODE_OPTIONS line');
  return Object.fromEntries(line.split(/\s+/).map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]));
}

export async function startChild<S extends Side | 'provider' | 'eoc'>(
  side: S,
  variable: string,
  settings: object,
  script = path.join(HERE, `${side}.ts`),
  runtimeEnv?: Record<string, string>,
): Promise<Server & { side: S }> {
  const child = fork(script, [], {
    // The gateway can be asked for its heap after a full collection (memory report).
    execArgv: side === 'gateway' || side === 'base' ? ['--expose-gc'] : [],
    // NODE_ENV=production for every server (Express, express-openid-connect and the gateway read it).
    env: { ...process.env, NODE_ENV: 'production', ...(side === 'gateway' || side === 'base' ? runtimeEnv ?? await imageRuntimeEnv() : {}), [variable]: JSON.stringify(settings) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message: ServerMessage) => {
      if (message.type === 'ready') resolve(message.port);
      else if (message.type === 'failed') reject(new Error(`${side} server failed to start: ${message.message}`));
    });
    child.once('exit', (code) => reject(new Error(`${side} server exited with code ${code} before it was ready`)));
  });
  return { side, child, baseUrl: `http://127.0.0.1:${port}` };
}

/** Sends a message to a server process and waits for its answer of the given type. */
export function ask<T extends ServerMessage['type']>(server: Server, message: DriverMessage, answer: T): Promise<Extract<ServerMessage, { type: T }>> {
  return new Promise((resolve) => {
    const listener = (reply: ServerMessage) => {
      if (reply.type !== answer) return;
      server.child.off('message', listener);
      resolve(reply as Extract<ServerMessage, { type: T }>);
    };
    server.child.on('message', listener);
    server.child.send(message);
  });
}

/** The server's garbage-collection pauses so far (protocol.ts GcTotals). */
export async function gcTotals(server: Server): Promise<GcTotals> {
  return (await ask(server, { type: 'gc' }, 'gc')).totals;
}

export const profiled = (side: Side) => SETTINGS.cpuProfile === side || SETTINGS.cpuProfile === 'both';

export async function stopServer(server: Server): Promise<void> {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => server.child.once('exit', () => resolve()));
  server.child.send({ type: 'stop' });
  const timer = setTimeout(() => server.child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

/** The gateway's heap in use after a full collection, in bytes. */
export async function heapAfterGc(server: Server): Promise<number> {
  return (await memoryAfterGc(server)).heapUsed;
}

/** The gateway's process.memoryUsage() after a full collection (RSS, heap, external, ArrayBuffers). */
export function memoryAfterGc(server: Server, gc = true): Promise<Extract<ServerMessage, { type: 'memory' }>> {
  return ask(server, { type: 'memory', gc }, 'memory');
}

export async function rssBytes(pid: number): Promise<number | null> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const kb = /VmRSS:\s+(\d+) kB/.exec(status);
    return kb ? Number(kb[1]) * 1024 : null;
  } catch {
    return null;
  }
}

export const mb = (bytes: number | null) => (bytes === null ? 'n/a' : `${(bytes / 1024 / 1024).toFixed(1)} MB`);
