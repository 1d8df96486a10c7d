// Both servers must answer alike before anything is measured.
import { seedHandoffs } from './seed.ts';
import { basic, exchangeBody, request, sendCallback, sendExchange, startAndApprove, startUrl } from './browser.ts';
import type { Context, Server, Side } from './settings.ts';

export async function postExchange(server: Server, authorization: string, code: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${server.baseUrl}/v1/auth/exchange`, {
    method: 'POST',
    headers: { authorization, 'content-type': 'application/json' },
    body: exchangeBody(code),
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as unknown) : null };
}

/** The shape of a JSON value: key names and value types, recursively. */
export function shape(value: unknown): unknown {
  if (Array.isArray(value)) return value.length ? [shape(value[0])] : [];
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.keys(value).sort().map((key) => [key, shape((value as Record<string, unknown>)[key])]));
  }
  return value === null ? 'null' : typeof value;
}

/**
 * Both servers must answer alike before their speed is compared: the same
 * authorize URL parameters, the same exchange body for a known code, 404 on a
 * second use and 401 on a wrong secret. The gateway's first start also runs
 * OIDC discovery, so none of that lands in a measurement.
 */
export async function checkEquivalence(ctx: Context): Promise<void> {
  const authorizeParams: Record<'bare' | 'gateway', string[]> = { bare: [], gateway: [] };
  for (const side of ['bare', 'gateway'] as const) {
    const response = await fetch(startUrl(ctx.servers[side]), { redirect: 'manual' });
    const location = response.headers.get('location') ?? '';
    if (response.status !== 302 || !location.startsWith(`${ctx.authorizationEndpoint}?`)) {
      throw new Error(`${side}: start answered ${response.status} ${location || (await response.text())}`);
    }
    authorizeParams[side] = [...new URL(location).searchParams.keys()].sort();
  }
  if (authorizeParams.bare.join() !== authorizeParams.gateway.join()) {
    throw new Error(`the authorize URLs differ: bare ${authorizeParams.bare.join()} vs gateway ${authorizeParams.gateway.join()}`);
  }

  const batch = await seedHandoffs(ctx.client, ctx.seedTarget, 2);
  const authorization = basic(ctx.platform.clientId, ctx.platform.clientSecret);
  const bodies: unknown[] = [];
  for (const [index, side] of (['bare', 'gateway'] as const).entries()) {
    const server = ctx.servers[side];
    const first = await postExchange(server, authorization, batch.codes[index]!);
    const session = (first.body as { session?: { id?: string; gatewayToken?: string } } | null)?.session;
    if (first.status !== 200 || session?.id !== batch.sessionIds[index] || !session?.gatewayToken?.startsWith('gwp_')) throw new Error(`${side}: exchange answered ${first.status} ${JSON.stringify(first.body)}`);
    bodies.push(first.body);
    const again = await postExchange(server, authorization, batch.codes[index]!);
    if (again.status !== 404) throw new Error(`${side}: a second exchange of one code answered ${again.status}, expected 404`);
    const wrongSecret = await postExchange(server, basic(ctx.platform.clientId, 'pcs_wrong'), batch.codes[index]!);
    if (wrongSecret.status !== 401) throw new Error(`${side}: a wrong secret answered ${wrongSecret.status}, expected 401`);
  }
  if (JSON.stringify(shape(bodies[0])) !== JSON.stringify(shape(bodies[1]))) {
    throw new Error(`the exchange bodies differ in shape: bare ${JSON.stringify(shape(bodies[0]))} vs gateway ${JSON.stringify(shape(bodies[1]))}`);
  }
  // A whole login on each, then the same callback again: single use.
  const logins: unknown[] = [];
  for (const side of ['bare', 'gateway'] as const) {
    const pending = await startAndApprove(ctx, side);
    const code = await sendCallback(ctx, side, pending);
    const replay = await request(ctx.agents[side], pending.url, { headers: { cookie: pending.cookie } });
    if (replay.status < 400) throw new Error(`${side}: a replayed callback answered ${replay.status}`);
    logins.push(await sendExchange(ctx, side, code, pending.verifier));
  }
  if (JSON.stringify(shape(logins[0])) !== JSON.stringify(shape(logins[1]))) {
    throw new Error(`the exchange bodies after a login differ in shape: bare ${JSON.stringify(shape(logins[0]))} vs gateway ${JSON.stringify(shape(logins[1]))}`);
  }
}
