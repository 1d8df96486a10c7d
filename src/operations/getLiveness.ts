import type { OperationHandler } from '../api/types.ts';
import { SERVICE_VERSION } from '../version.ts';

/** Liveness: the process answers. No dependency is checked, so a database outage never restarts pods. */
export const getLiveness: OperationHandler<'getLiveness'> = async () => ({
  status: 200,
  body: { status: 'ok', uptimeSeconds: Math.round(process.uptime()), version: SERVICE_VERSION, node: process.version },
  headers: { 'Cache-Control': 'no-store' },
});
