// A real Redis for tests: one `redis-server` per test file on a free port, no persistence.
// `.ci/run` installs Debian's redis-server when it is missing; where it cannot be installed the
// tests that need it report themselves skipped (describe.skipIf(!redisServerPath)).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { once } from 'node:events';

/** The redis-server binary, or null when none is installed. */
export const redisServerPath: string | null = ['/usr/bin/redis-server', '/usr/local/bin/redis-server'].find((path) => existsSync(path)) ?? null;

export const REDIS_SKIP_REASON = redisServerPath ? '' : ' (skipped: redis-server is not installed; apt-get install redis-server)';

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface RedisServer {
  readonly port: number;
  readonly url: string;
  /** Stops the server (SIGTERM, waits for its exit). */
  stop(): Promise<void>;
  /** Starts it again on the same port, empty. */
  restart(): Promise<void>;
  /** SIGSTOP: the server keeps its connections open and answers nothing (a frozen Redis). */
  freeze(): void;
  /** SIGCONT. */
  thaw(): void;
}

export async function startRedisServer(): Promise<RedisServer> {
  if (!redisServerPath) throw new Error('redis-server is not installed');
  const port = await freePort();
  let child: ChildProcess | null = null;

  const start = async () => {
    const proc = spawn(redisServerPath, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = proc;
    let output = '';
    await new Promise<void>((resolve, reject) => {
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('Ready to accept connections')) {
          proc.stdout!.off('data', onData);
          proc.stdout!.resume();
          resolve();
        }
      };
      proc.stdout!.on('data', onData);
      proc.stderr!.resume();
      proc.once('exit', (code) => reject(new Error(`redis-server exited (${code}) before it was ready:\n${output}`)));
      proc.once('error', reject);
    });
  };

  const stop = async () => {
    const proc = child;
    child = null;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    proc.kill('SIGCONT');
    const exited = once(proc, 'exit');
    proc.kill('SIGTERM');
    await exited;
  };

  // A test process that dies without its afterAll must not leave the server behind.
  const killOnExit = () => void child?.kill('SIGKILL');
  process.once('exit', killOnExit);

  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    stop: async () => {
      process.off('exit', killOnExit);
      await stop();
    },
    restart: async () => {
      await stop();
      await start();
    },
    freeze: () => void child?.kill('SIGSTOP'),
    thaw: () => void child?.kill('SIGCONT'),
  };
}
