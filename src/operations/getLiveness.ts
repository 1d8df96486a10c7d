import type { OperationHandler } from '../api/types.ts';
import { SERVICE_VERSION } from '../version.ts';

/** The liveness body (also answered by the boot probes, src/bootProbes.ts, before the app exists). */
export const livenessBody = () => ({ status: 'ok' as const, uptimeSeconds: Math.round(process.uptime()), version: SERVICE_VERSION, node: process.version });

/** Liveness: the process answers. No dependency is checked, so a database outage never restarts pods. */
export const getLiveness: OperationHandler<'getLiveness'> = async () => ({
  status: 200,
  body: livenessBody(),
  headers: { 'Cache-Control': 'no-store' },
});
