import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { EMBEDDED_DATA_DIR } from '../db/open.ts';

/**
 * The embedded PostgreSQL (development only) is a child process of node: a clean stop
 * (SIGTERM, SIGINT, the parent npm going) stops it, but a node that dies unannounced
 * (SIGKILL, a crash, the OOM killer) would leave it running with its port bound. A tiny
 * detached shell watches node's pid and then stops the server (SIGINT: PostgreSQL's "fast"
 * shutdown), only if postmaster.pid still names the same server (after a clean stop it is gone).
 */
export function watchEmbeddedPostgres(logger: Logger, dataDir: string = EMBEDDED_DATA_DIR): void {
  const pidFile = path.join(dataDir, 'postmaster.pid');
  let postgresPid: number;
  try {
    postgresPid = Number(readFileSync(pidFile, 'utf8').split('\n', 1)[0]);
  } catch {
    return;
  }
  if (!Number.isInteger(postgresPid) || postgresPid <= 0) return;
  const script = [
    `while kill -0 ${process.pid} 2>/dev/null; do sleep 1; done`,
    `[ "$(head -n 1 "$1" 2>/dev/null)" = "${postgresPid}" ] && kill -INT ${postgresPid}`,
    'exit 0',
  ].join('\n');
  try {
    const watchdog = spawn('/bin/sh', ['-c', script, 'postgres-watchdog', pidFile], { detached: true, stdio: 'ignore' });
    watchdog.on('error', (error) => logger.debug({ err: error }, 'the embedded PostgreSQL watchdog could not start'));
    watchdog.unref();
  } catch (error) {
    logger.debug({ err: error }, 'the embedded PostgreSQL watchdog could not start');
  }
}
