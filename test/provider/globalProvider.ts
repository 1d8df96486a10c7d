// The provider suite's global setup: LemonLDAP::NG installed (Debian, as root) and started once
// for the run, configured for a gateway on a port chosen here (its callback, back-channel logout
// and post-logout URLs are in LLNG's configuration before the gateway starts). Without the
// packages (and not root to install them) the suite reports itself skipped, with the reason.
// Bounded: the whole run stops after RUN_LIMIT_MS, killing what it started.
import type { TestProject } from 'vitest/node';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { userInfo } from 'node:os';
import { freePort } from '../../src/db/embedded.ts';
import { missingPackages, startLlng, type LlngStack } from './llngStack.ts';
import { installGlewlwyd } from './glewlwydStack.ts';

const RUN_LIMIT_MS = 8 * 60_000;

export interface ProviderContext {
  /** Why the suite cannot run here (then nothing else is set). */
  skipped: string | null;
  issuer: string;
  folder: string;
  clientId: string;
  clientSecret: string;
  /** The port the gateway must listen on (127.0.0.1): LLNG knows its URLs. */
  gatewayPort: number;
}

declare module 'vitest' {
  export interface ProvidedContext {
    provider: ProviderContext;
  }
}

const log = (line: string) => process.stdout.write(`[provider] ${line}\n`);

function install(): string | null {
  const missing = missingPackages();
  if (missing.length === 0) return null;
  if (userInfo().uid !== 0) return `needs the Debian packages ${missing.join(', ')}; run it as root to install them`;
  log(`installing ${missing.join(', ')} (Debian)`);
  try {
    execFileSync('apt-get', ['update', '-qq'], { stdio: 'ignore' });
    execFileSync('apt-get', ['install', '-y', '-qq', ...missing], { stdio: 'ignore', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  } catch (error) {
    return `apt-get install ${missing.join(' ')} failed: ${(error as Error).message.split('\n')[0]}`;
  }
  const still = missingPackages();
  return still.length ? `still missing after apt-get: ${still.join(', ')}` : null;
}

export default async function setup(project: TestProject) {
  const skipped = install();
  // Glewlwyd serves check 5 only (glewlwyd.test.ts): when it cannot be installed that file reports itself skipped.
  const glewlwyd = installGlewlwyd(log);
  if (glewlwyd) log(`Glewlwyd not installed: ${glewlwyd}`);
  const empty = { issuer: '', folder: '', clientId: '', clientSecret: '', gatewayPort: 0 };
  if (skipped) {
    log(`skipped: ${skipped}`);
    project.provide('provider', { skipped, ...empty });
    return undefined;
  }
  const gatewayPort = await freePort();
  // Letters and digits only: LLNG 2.16 does not form-urldecode client_secret_basic credentials
  // (RFC 6749 §2.3.1), and openid-client encodes `-`, `_`, `.` and `~` (docs/providers.md).
  const clientId = 'authgateway';
  const clientSecret = randomBytes(32).toString('hex');
  const began = Date.now();
  const stack: LlngStack = await startLlng({ gatewayUrl: `http://127.0.0.1:${gatewayPort}`, clientId, clientSecret, log });
  log(`LemonLDAP::NG up in ${((Date.now() - began) / 1000).toFixed(1)} s`);
  const limit = setTimeout(() => {
    log(`run limit of ${RUN_LIMIT_MS / 1000} s reached: stopping LemonLDAP::NG and the run`);
    void stack.stop().finally(() => process.exit(1));
  }, RUN_LIMIT_MS);
  limit.unref();
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    clearTimeout(limit);
    if (process.env.LLNG_SHOW_LOGS) log(stack.logs());
    await stack.stop();
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void stop().finally(() => process.exit(130)));
  project.provide('provider', { skipped: null, issuer: stack.issuer, folder: stack.folder, clientId, clientSecret, gatewayPort });
  return stop;
}
