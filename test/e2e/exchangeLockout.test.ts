// Issue "rate limits that lock people out", finding 1: nothing a stranger or honest traffic
// sends can make the gateway refuse a platform back end whose credentials are valid. Junk codes
// posted to a platform's public callback page reach the exchange through that platform's own
// back end (its valid Basic credentials, its egress address); so do honest replays (a person
// reloading the callback page, a retry after a timeout). The real flow: the dev identity
// provider's login page, the gateway listening on a real port, the default limits (no
// RATE_LIMIT_* override for the exchange), real PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { startHarness, addPlatform, browserLogin, PLATFORM_CALLBACK, type Harness, type TestPlatform } from '../helpers/flowHarness.ts';
import { basicAuth } from '../helpers/oidcBrowser.ts';
import type { Metrics } from '../../src/observability/metrics.ts';

const ALICE = { username: 'alice', password: 'alice-password' };
const ADMIN = { username: 'admin', password: 'admin-password' };

describe('the exchange cannot be turned against the back end it serves', () => {
  let harness: Harness;

  beforeAll(async () => {
    harness = await startHarness();
  });
  afterAll(async () => {
    await harness?.close();
  });

  /** The platform's back end: POST /v1/auth/exchange over real HTTP, from 127.0.0.1 like every caller here. */
  const exchange = (authorization: string, code: string) =>
    fetch(`${harness.baseUrl}/v1/auth/exchange`, {
      method: 'POST',
      headers: { Authorization: authorization, 'Content-Type': 'application/json' },
      body: JSON.stringify({ code }),
    }).then(async (res) => ({ status: res.status, body: (await res.json()) as { code?: string; user?: { sub: string } } }));

  /** A real login through the dev provider's login page, up to the code on the platform's callback. */
  async function handoffCode(platform: TestPlatform, user: typeof ALICE): Promise<string> {
    const { location } = await browserLogin(harness, platform.key, user);
    expect(`${location.origin}${location.pathname}`).toBe(PLATFORM_CALLBACK);
    return location.searchParams.get('code')!;
  }

  const scrape = async () => (await (harness.gateway.app.locals.metrics as Metrics).scrape()).body;

  it('eleven junk codes sent through a platform\'s back end, then another person\'s login through the same back end: it succeeds', async () => {
    const platform = await addPlatform(harness);
    // Someone posts junk to the platform's public callback page (/auth/callback?code=handoff_x1 … x11):
    // the back end exchanges each, with its own valid credentials.
    for (let i = 1; i <= 11; i++) {
      const junk = await exchange(platform.basic, `handoff_x${i}`);
      expect(junk.status).toBe(404);
      expect(junk.body.code).toBe('HANDOFF_CODE_INVALID');
    }
    const honest = await exchange(platform.basic, await handoffCode(platform, ALICE));
    expect(honest.status).toBe(200);
    expect(honest.body.user?.sub).toBe('dev-user-alice');

    // Counted for the operator, by platform, without throttling anyone.
    const metrics = await scrape();
    expect(metrics).toMatch(new RegExp(`^gateway_handoffs_invalid_total\\{platform="${platform.key}"\\} 11$`, 'm'));
    expect(metrics).not.toMatch(/gateway_rate_limit_refusals_total\{/);
  });

  it('thirty concurrent exchanges of one code by its platform: exactly one 200, every other one 404 (no 429)', async () => {
    const platform = await addPlatform(harness);
    const code = await handoffCode(platform, ADMIN);
    const answers = await Promise.all(Array.from({ length: 30 }, () => exchange(platform.basic, code)));
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([200, ...Array<number>(29).fill(404)]);
    expect(answers.filter((answer) => answer.status === 404).every((answer) => answer.body.code === 'HANDOFF_CODE_INVALID')).toBe(true);
    // The replays behind it changed nothing for the next person.
    expect((await exchange(platform.basic, await handoffCode(platform, ALICE))).status).toBe(200);
  });

  it('a stranger behind the back end\'s egress address sending wrong secrets for its client id does not lock it out', async () => {
    const platform = await addPlatform(harness);
    for (let i = 0; i < 20; i++) {
      const guessed = await exchange(basicAuth(platform.clientId, randomBytes(32).toString('base64url')), `handoff_guess${i}`);
      expect(guessed.status).toBe(401);
      expect(guessed.body.code).toBe('INVALID_CLIENT_CREDENTIALS');
    }
    expect((await exchange(platform.basic, await handoffCode(platform, ALICE))).status).toBe(200);
  });
});
