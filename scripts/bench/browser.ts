// The browser and platform back end of the flow runs (callback, whole login).
import http from 'node:http';
import https from 'node:https';
import { randomToken, s256Challenge } from '../../src/security/crypto.ts';
import { CALLBACK_URL, HANDOFF_VERIFIER, PLATFORM_KEY, RETURN_TO, type Context, type Server, type Side } from './settings.ts';

// ---------------------------------------------------------------- checks before measuring

/** The start of a login, with the handoff challenge of `verifier` (the platform's back end keeps the verifier). */
export const startUrl = (server: Server, verifier = HANDOFF_VERIFIER) =>
  `${server.baseUrl}/v1/auth/start?${new URLSearchParams({ platformKey: PLATFORM_KEY, returnTo: RETURN_TO, handoffChallenge: s256Challenge(verifier) })}`;

/** The platform back end's exchange body: the handoff code and the verifier of its login's challenge. */
export const exchangeBody = (code: string, verifier = HANDOFF_VERIFIER) => JSON.stringify({ code, handoffVerifier: verifier });

export const basic = (clientId: string, secret: string) => `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`;

// ---------------------------------------------------------------- the browser of the flow runs
// A login is four requests: start (302 to the provider, with the binding cookie), the
// provider's authorize endpoint (302 back to AUTH_CALLBACK_URL), the callback (302 to
// the platform's callback with a handoff code, the session cookie) and the platform
// back end's exchange. This driver plays the browser and the platform back end with
// node:http on keep-alive agents; its own CPU is accounted apart.

export interface Answer {
  status: number;
  location: string | null;
  cookies: string[];
  body: string;
}

/** One request over `agent`: an https.Agent for the provider (TLS), an http.Agent for the servers. */
export function request(agent: http.Agent, url: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = (agent instanceof https.Agent ? https : http).request(url, { agent, method: options.method ?? 'GET', headers: options.headers ?? {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const setCookie = res.headers['set-cookie'] ?? [];
        resolve({ status: res.statusCode ?? 0, location: res.headers.location ?? null, cookies: setCookie, body: Buffer.concat(chunks).toString('utf8') });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/** A login up to the callback: started, approved by the provider; the callback request is ready to send. */
export interface PendingCallback {
  url: string;
  cookie: string;
  /** The handoff verifier the platform's back end keeps for this login. */
  verifier: string;
}

export class FlowError extends Error {}

export async function startAndApprove(ctx: Context, side: Side): Promise<PendingCallback> {
  const server = ctx.servers[side];
  const verifier = randomToken(32);
  const started = await request(ctx.agents[side], startUrl(server, verifier));
  if (started.status !== 302 || !started.location) throw new FlowError(`start answered ${started.status}`);
  const binding = started.cookies.find((cookie) => cookie.includes('_login_'));
  if (!binding) throw new FlowError('start set no binding cookie');
  const approved = await request(ctx.agents.provider, started.location);
  if (approved.status !== 302 || !approved.location?.startsWith(`${CALLBACK_URL}?`)) throw new FlowError(`the provider answered ${approved.status}`);
  const back = new URL(approved.location);
  return { url: `${server.baseUrl}${back.pathname}${back.search}`, cookie: binding.split(';')[0]!, verifier };
}

/** The callback; answers the handoff code. */
export async function sendCallback(ctx: Context, side: Side, pending: PendingCallback): Promise<string> {
  const answer = await request(ctx.agents[side], pending.url, { headers: { cookie: pending.cookie } });
  const code = answer.status === 302 && answer.location ? new URL(answer.location).searchParams.get('code') : null;
  if (!code) throw new FlowError(`callback answered ${answer.status} ${answer.body.slice(0, 200)}`);
  return code;
}

export async function sendExchange(ctx: Context, side: Side, code: string, verifier: string): Promise<unknown> {
  const answer = await request(ctx.agents[side], `${ctx.servers[side].baseUrl}/v1/auth/exchange`, {
    method: 'POST',
    headers: { authorization: basic(ctx.platform.clientId, ctx.platform.clientSecret), 'content-type': 'application/json' },
    body: exchangeBody(code, verifier),
  });
  if (answer.status !== 200) throw new FlowError(`exchange answered ${answer.status} ${answer.body.slice(0, 200)}`);
  return JSON.parse(answer.body) as unknown;
}

export async function wholeLogin(ctx: Context, side: Side): Promise<unknown> {
  const pending = await startAndApprove(ctx, side);
  return sendExchange(ctx, side, await sendCallback(ctx, side, pending), pending.verifier);
}

export interface FlowResult {
  ok: number;
  failed: number;
  failures: Record<string, number>;
  latenciesMs: number[];
  durationSeconds: number;
}

/** `users` concurrent loops over `task`, until `count` tasks have run or the deadline passed. */
export async function concurrently(users: number, limits: { count?: number; seconds?: number }, task: (index: number) => Promise<unknown>): Promise<FlowResult> {
  const result: FlowResult = { ok: 0, failed: 0, failures: {}, latenciesMs: [], durationSeconds: 0 };
  const began = process.hrtime.bigint();
  const deadline = limits.seconds === undefined ? Infinity : Date.now() + limits.seconds * 1000;
  let next = 0;
  const loop = async () => {
    while (Date.now() < deadline && (limits.count === undefined || next < limits.count)) {
      const index = next++;
      const t0 = process.hrtime.bigint();
      try {
        await task(index);
        result.ok++;
        result.latenciesMs.push(Number(process.hrtime.bigint() - t0) / 1e6);
      } catch (error) {
        result.failed++;
        const key = error instanceof Error ? error.message.slice(0, 80) : String(error);
        result.failures[key] = (result.failures[key] ?? 0) + 1;
      }
    }
  };
  await Promise.all(Array.from({ length: users }, loop));
  result.durationSeconds = Number(process.hrtime.bigint() - began) / 1e9;
  return result;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}
