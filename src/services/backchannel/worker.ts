import { Logger as WorkerLogger, run, type Runner } from 'graphile-worker';
import type { Logger } from 'pino';
import type { Config } from '../../config/index.ts';
import { connectionStringOf, type Db } from '../../db/knex.ts';
import { backchannelLogoutTask } from './delivery.ts';
import { BACKCHANNEL_LOGOUT_TASK } from './outbox.ts';
import { signingKeysFor } from './signingKeys.ts';

/** Deliveries in flight per instance: each waits at most DELIVERY_TIMEOUT_MS on a platform. */
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
}

export interface BackchannelWorker {
  /** Stops taking jobs and waits for the deliveries in flight (each bounded by its timeout). */
  stop(): Promise<void>;
}

/**
 * Works the back-channel logout outbox: graphile-worker's runner on the gateway's own
 * PostgreSQL (its own small pool next to knex's), with the one task. Every instance runs one;
 * graphile-worker hands each job to one worker at a time. Signals are the service's to handle
 * (`noHandleSignals`): main.ts stops the worker on shutdown, before the database pool closes.
 */
export async function startBackchannelWorker(
  deps: { config: Pick<Config, 'publicBaseUrl' | 'gatewaySigningKeys' | 'isProduction'>; db: Db; logger: Logger },
  options: BackchannelWorkerOptions = {},
): Promise<BackchannelWorker> {
  const concurrency = options.concurrency ?? BACKCHANNEL_WORKER_CONCURRENCY;
  const logger = deps.logger.child({ component: 'backchannel-worker' });
  const runner: Runner = await run({
    connectionString: connectionStringOf(deps.db),
    // One connection listens for new jobs; the others take, complete and fail jobs.
    maxPoolSize: concurrency + 2,
    concurrency,
    noHandleSignals: true,
    pollInterval: options.pollIntervalMs ?? 2000,
    logger: workerLogger(logger),
    taskList: {
      [BACKCHANNEL_LOGOUT_TASK]: backchannelLogoutTask({
        db: deps.db,
        logger,
        keys: signingKeysFor(deps.config),
        issuer: deps.config.publicBaseUrl,
        ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      }),
    },
  });
  let stopped: Promise<void> | null = null;
  return {
    stop() {
      stopped ??= runner.stop();
      return stopped;
    },
  };
}

/**
 * graphile-worker's messages in the service's log. Its per-job "Completed task"/"Failed task"
 * lines become debug (the task logs each delivery, failed attempt and give-up itself, without
 * graphile-worker's job object); everything else keeps its level.
 */
function workerLogger(logger: Logger): WorkerLogger {
  return new WorkerLogger((scope) => (level, message, meta) => {
    const perJob = meta?.failure === true || message.startsWith('Completed task');
    const fields = { worker: { label: scope.label, workerId: scope.workerId, jobId: scope.jobId } };
    if (perJob || level === 'debug' || level === 'info') logger.debug(fields, message);
    else if (level === 'error') logger.error({ ...fields, err: meta?.error ?? meta?.fatalError }, message);
    else logger.warn(fields, message);
  });
}
