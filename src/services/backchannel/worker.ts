import { Logger as WorkerLogger, run, type Runner } from 'graphile-worker';
import type { Logger } from 'pino';
import pg from 'pg';
import type { Config } from '../../config/index.ts';
import { connectionStringOf, type Db } from '../../db/knex.ts';
import { backchannelLogoutTask } from './delivery.ts';
import { BACKCHANNEL_LOGOUT_TASK } from './outbox.ts';
import { signingKeysFor } from '../../security/signingKeys.ts';
import { securityEventPushTask } from '../events/push.ts';
import { SECURITY_EVENT_TASK } from '../events/index.ts';
import { DATA_EXPORT_TASK, dataExportTask } from '../dataRights/exportJob.ts';
import type { Resolver } from '../../security/outboundLookup.ts';

/** Deliveries in flight per instance: each waits at most DELIVERY_TIMEOUT_MS (security/outboundPost.ts) on a platform. */
export const BACKCHANNEL_WORKER_CONCURRENCY = 4;

export interface BackchannelWorkerOptions {
  concurrency?: number;
  /**
   * How often the worker looks for jobs that became due (retries). New jobs arrive at once by
   * LISTEN/NOTIFY; graphile-worker's default is 2000 ms. Tests pass a short one.
   */
  pollIntervalMs?: number;
  /** Per delivery (default 5 s). */
  timeoutMs?: number;
  /** How deliveries resolve names (default the system's resolver); tests map a name to an address. */
  resolve?: Resolver;
}

export interface BackchannelWorker {
  /** Stops taking jobs and waits for the deliveries in flight (each bounded by its timeout). */
  stop(): Promise<void>;
}

/**
 * Works the back-channel logout outbox: graphile-worker's runner on the gateway's own
 * PostgreSQL (its own small pool next to knex's), with its task, and the data export jobs
 * (issue 26, services/dataRights/exportJob.ts). Every instance runs one;
 * graphile-worker hands each job to one worker at a time. Signals are the service's to handle
 * (`noHandleSignals`): main.ts stops the worker on shutdown, before the database pool closes.
 *
 * The pool is ours, not graphile-worker's: given a connection string, graphile-worker made its
 * own, removed its error handlers when stopped and ended it without waiting, so a server that
 * stopped meanwhile (the dev stack's embedded one stops a few milliseconds later) sent
 * "terminating connection" to a client with nobody listening, and the unhandled 'error' event
 * crashed the process. Ours keeps its handlers for its whole life, and `stop()` waits until
 * every connection is closed (test/db/backchannelWorkerStop.test.ts).
 */
export async function startBackchannelWorker(
  deps: {
    config: Pick<Config, 'publicBaseUrl' | 'gatewaySigningKeys' | 'isProduction'> & Partial<Pick<Config, 'outbound'>>;
    db: Db;
    logger: Logger;
    /** The service's shutdown state (main.ts): draining means the service is stopping. */
    lifecycle?: { readonly draining: boolean };
  },
  options: BackchannelWorkerOptions = {},
): Promise<BackchannelWorker> {
  const concurrency = options.concurrency ?? BACKCHANNEL_WORKER_CONCURRENCY;
  const logger = deps.logger.child({ component: 'backchannel-worker' });
  // Once the service stops, its database goes too: with Ctrl-C the embedded PostgreSQL gets the
  // signal at the same moment and ends the worker's connections, often before stop() is called.
  // Those losses are expected, so they are told calmly, without error level or stack trace.
  let stopRequested = false;
  const stopping = () => stopRequested || deps.lifecycle?.draining === true;
  // One connection listens for new jobs; the others take, complete and fail jobs.
  const pool = new pg.Pool({ connectionString: connectionStringOf(deps.db), max: concurrency + 2, application_name: 'auth-gateway-worker' });
  // A connection that fails (a restart, the server stopping) is logged once, by its own listener,
  // whether it is idle or in use; pg drops it from the pool, and a query on it fails where
  // graphile-worker handles it. pg passes an idle connection's error on to the pool as well: that
  // listener only keeps the event handled (without one it would crash the process).
  pool.on('connect', (client) =>
    client.on('error', (error: Error & { code?: string }) => {
      if (stopping()) logger.info({ reason: error.code ?? error.message }, 'back-channel worker: a database connection closed while the service stops');
      else logger.warn({ reason: error.code ?? error.message }, 'back-channel worker: a database connection failed');
    }),
  );
  pool.on('error', () => {});
  const taskContext = {
    db: deps.db,
    logger,
    keys: signingKeysFor(deps.config),
    issuer: deps.config.publicBaseUrl,
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    // Without a configuration's policy (a test's), deliveries reach public addresses only.
    outbound: { ...(deps.config.outbound ? { policy: deps.config.outbound } : {}), ...(options.resolve ? { resolve: options.resolve } : {}) },
  };
  let runner: Runner;
  try {
    runner = await run({
      pgPool: pool,
      concurrency,
      noHandleSignals: true,
      pollInterval: options.pollIntervalMs ?? 2000,
      logger: workerLogger(logger, stopping),
      taskList: {
        [BACKCHANNEL_LOGOUT_TASK]: backchannelLogoutTask(taskContext),
        // Security Event Tokens pushed to platforms (RFC 8935): same queue, keys and outbound rules.
        [SECURITY_EVENT_TASK]: securityEventPushTask(taskContext),
        [DATA_EXPORT_TASK]: dataExportTask({ db: deps.db, logger: deps.logger.child({ component: 'data-export' }) }),
      },
    });
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw error;
  }
  let stopped: Promise<void> | null = null;
  return {
    stop() {
      stopRequested = true;
      stopped ??= runner.stop().finally(() => pool.end());
      return stopped;
    },
  };
}

/**
 * graphile-worker's messages in the service's log. Its per-job "Completed task"/"Failed task"
 * lines become debug (the task logs each delivery, failed attempt and give-up itself, without
 * graphile-worker's job object); everything else keeps its level, except while the service
 * stops: its warnings and errors then are lost connections and refused reconnections (the
 * database stopping too), logged at info with their message and no stack.
 */
function workerLogger(logger: Logger, stopping: () => boolean): WorkerLogger {
  return new WorkerLogger((scope) => (level, message, meta) => {
    const perJob = meta?.failure === true || message.startsWith('Completed task');
    const fields = { worker: { label: scope.label, workerId: scope.workerId, jobId: scope.jobId } };
    if (perJob || level === 'debug' || level === 'info') logger.debug(fields, message);
    else if (stopping()) logger.info(fields, `while the service stops: ${message}`);
    else if (level === 'error') logger.error({ ...fields, err: meta?.error ?? meta?.fatalError }, message);
    else logger.warn(fields, message);
  });
}
