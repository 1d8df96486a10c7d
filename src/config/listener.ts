// The HTTP listener: where it listens (HOST), which browser origins it answers (CORS_ORIGINS), and
// how long it drains at shutdown (SHUTDOWN_GRACE_SECONDS).

import { isIP } from 'node:net';
import { checkHttpUrl, type Reader } from './reader.ts';

/** Origins are compared exactly (scheme, host, port), as browsers send them in the Origin header. */
export function readOrigins(reader: Reader, name: string, fallback: string[]): string[] {
  const raw = reader.raw(name);
  if (raw === undefined) return fallback;
  const origins: string[] = [];
  for (const entry of raw.split(',').map((part) => part.trim()).filter(Boolean)) {
    const problem = checkHttpUrl(entry);
    const url = problem === null ? new URL(entry) : null;
    if (!url || url.origin !== entry.replace(/\/$/, '')) {
      reader.problems.push(`${name} entry "${entry}" is refused: must be an origin such as https://app.example.com (scheme, host, optional port; no path)`);
      continue;
    }
    origins.push(url.origin);
  }
  return [...new Set(origins)];
}

/** HOST: an IP address (`0.0.0.0` or `::` for every interface) or a host name; see Config.listenHost. */
export function readListenHost(reader: Reader, devStack: boolean): string | null {
  const raw = reader.raw('HOST');
  if (raw === undefined) return devStack ? '127.0.0.1' : null;
  if (isIP(raw) === 0 && !/^[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?$/.test(raw)) {
    reader.problems.push(`HOST=${raw} is refused: must be an IP address (0.0.0.0 or :: for every interface, 127.0.0.1 for this machine only) or a host name`);
    return null;
  }
  return raw;
}

/**
 * SHUTDOWN_GRACE_SECONDS in production when unset. With 0 the listener closed at SIGTERM while
 * balancers still wrote requests on their idle keep-alive connections, and those were reset (a
 * rolling restart lost 1 of 2,578 logins; 0 of 2,931 with 2 s). Development and tests keep 0, so
 * Ctrl-C and a test's stop are immediate.
 */
export const DEFAULT_PRODUCTION_SHUTDOWN_GRACE_SECONDS = 5;

