import { existsSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { Config } from './config/index.ts';
import { EMBEDDED_DATA_DIR, EMBEDDED_PORT } from './db/open.ts';

/** A port this process is about to listen on, and the variable that moves it. */
export interface PlannedPort {
  port: number;
  variable: string;
  /** What listens there, for the message. */
  what: string;
}

/**
 * Every port a start of the service will listen on: the gateway's, the metrics listener's and,
 * when the dev stack runs (no OIDC_ISSUER, not production), the dev identity provider's, the
 * example BFF's and the account center's, and the embedded PostgreSQL's when it will start one.
 * Port 0 (any free port) is left out.
 */
export function plannedPorts(config: Config): PlannedPort[] {
  const ports: PlannedPort[] = [{ port: config.port, variable: 'PORT', what: 'the gateway' }];
  if (config.metricsPort !== null) ports.push({ port: config.metricsPort, variable: 'METRICS_PORT', what: 'the metrics listener' });
  if (!config.oidc.issuer && !config.isProduction) {
    ports.push(
      { port: config.devIdpPort, variable: 'DEV_IDP_PORT', what: 'the dev identity provider' },
      { port: config.demoBffPort, variable: 'DEMO_BFF_PORT', what: 'the example BFF' },
      { port: Number(new URL(config.accountCenterUrl).port || 80), variable: 'ACCOUNT_CENTER_URL', what: 'the account center' },
    );
  }
  // The embedded PostgreSQL, unless one of ours already runs on .data/ (the CLI's, reused).
  if (!config.databaseUrl && !existsSync(path.join(EMBEDDED_DATA_DIR, 'postmaster.pid'))) {
    ports.push({ port: EMBEDDED_PORT, variable: 'EMBEDDED_POSTGRES_PORT', what: 'the embedded PostgreSQL' });
  }
  return ports.filter((planned) => planned.port !== 0);
}

/** Whether something already listens on the port (a trial listen on every interface, closed at once). */
export function portInUse(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'EADDRINUSE' || error.code === 'EACCES'));
    probe.listen(port, () => probe.close(() => resolve(false)));
  });
}

/**
 * The first planned port that is taken, checked before the service changes anything (no
 * database seeded, no credentials touched), so a second `npm start` leaves the first one as
 * it is. The message names the port and the variable that moves it.
 */
export async function busyPortMessage(config: Config): Promise<string | null> {
  const busy: PlannedPort[] = [];
  for (const planned of plannedPorts(config)) {
    if (await portInUse(planned.port)) busy.push(planned);
  }
  if (busy.length === 0) return null;
  const list = busy.map((planned) => `port ${planned.port} is already in use (${planned.variable}, ${planned.what})`).join('; ');
  return `${list}. Is another auth-gateway running (npm start)? Stop it, or move ${busy.length === 1 ? 'it with that variable' : 'them with those variables'}. Nothing was changed.`;
}
