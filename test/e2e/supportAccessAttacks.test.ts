// Support access (issue 35), thought through as an attacker: a link raced, a reason that would
// break the database or lie to the person, what a support session may still call, and that
// every way its session ends tells the platform once. Real logins through the dev identity
// provider, real HTTP, real PostgreSQL; Security Event Tokens verified against the published keys.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { parse } from 'yaml';
import type { JWTPayload } from 'jose';
import { eventsOfType, pollVerifiedSets } from '../helpers/securityEventPoll.ts';
import { startHarness, addPlatform, startUrl, type Harness, type TestPlatform } from '../helpers/flowHarness.ts';
import { asPerson, person, signIn, type SignedIn } from '../helpers/dataRights.ts';
import { DEV_USERS } from '../../src/devidp/users.ts';
import { activatePlatform, CLI_ACTOR, deactivatePlatform, updatePlatform } from '../../src/services/registry/index.ts';
import { generateSigningKeySpec } from '../../src/security/signingKeys.ts';

const SIGN_IN_ROUTE = 'https://bff.example.test/auth/login';
const RITA = person('rita');
const SUE = { ...person('sue'), familyName: 'Support', permissions: ['support:access'] };
const TOM = { ...person('tom'), permissions: ['support:access'] };
const UNA = person('una');
const VERA = person('vera');
const WES = person('wes');
const XENA = person('xena');
const ADA = { ...person('ada'), permissions: ['platforms:admin'] };
const ENDED = 'urn:auth-gateway:secevent:support-access-ended';

/**
 * The operations a support session may call although the contract does not mark them
 * `x-support-session: false`, each with why that is safe (the contract's "Support sessions"
 * paragraph says the same). A new operation taking a gateway session must be added here, or
 * marked: this list is the review.
 */
const ALLOWED_ON_SUPPORT_SESSION: Record<string, string> = {
  getMe: 'says act and supportAccess',
  getMyProfile: 'what the platform shows the person, read only',
  getOnboardingRequirements: 'the platform reads what it asks of the person',
  getOnboardingStatus: 'the platform reads where the person stands',
  getPlatformAgreements: 'the platform reads its own documents and the acceptances, read only',
  getPlatformBranding: 'what any signed-in caller reads: the look a platform shows everyone',
  signOut: 'ends the support session and with it the access',
  signOutBrowser: 'ends the support session and with it the access',
  confirmSignOut: 'ends the support session and with it the access',
  createSignOutToken: 'a proof to end this session, nothing more',
  resumeAuthentication: 'refuses every caller but a browser session (a support session is a platform credential)',
};

describe('support access under attack', () => {
  let harness: Harness;
  let platform: TestPlatform;
  let sue: SignedIn;
  let rita: SignedIn;
  let tom: SignedIn;
  const db = () => harness.database.db;
  const api = () => request(harness.gateway.app);

  beforeAll(async () => {
    harness = await startHarness({ GATEWAY_SIGNING_KEYS: generateSigningKeySpec('saa') }, { users: [...DEV_USERS, RITA, SUE, TOM, UNA, VERA, WES, XENA, ADA] });
    platform = await addPlatform(harness);
    await updatePlatform(db(), platform.key, { supportAccess: 'notify', supportSignInUrl: SIGN_IN_ROUTE, eventDelivery: 'poll' }, CLI_ACTOR, { requireHttps: false, outbound: harness.gateway.config.outbound });
    sue = await signIn(harness, platform, SUE);
    rita = await signIn(harness, platform, RITA);
    tom = await signIn(harness, platform, TOM);
  });
  afterAll(async () => {
    await harness?.close();
  });

  const requestAccess = (body: Record<string, unknown>) => asPerson(harness, sue.cookie).post('/v1/support-access').send({ person: RITA.sub, platformKey: platform.key, ...body });
  const supportStart = (id: string, platformKey = platform.key) => {
    const url = new URL(startUrl(harness, platformKey, undefined, { supportAccess: id }));
    return api().get(url.pathname + url.search).set('Cookie', sue.cookie);
  };
  /** A running support session of Rita's, as her platform holds it. */
  const supportSession = async (reason: string) => {
    const id: string = (await requestAccess({ reason }).expect(201)).body.id;
    const code = new URL((await supportStart(id).expect(302)).headers.location!).searchParams.get('code');
    const exchanged = await api().post('/v1/auth/exchange').set('Authorization', platform.basic).send({ code }).expect(200);
    return { id, sessionId: exchanged.body.session.id as string, cookie: `gw_session=${exchanged.body.session.gatewayToken}`, endsAt: exchanged.body.supportAccess.endsAt as string };
  };
  /** The `support_access.end` audit rows of an access: exactly one per end, naming who ended it. */
  const endAudits = async (id: string) =>
    (await db().raw(`SELECT ended_by, actor_type FROM audit_events WHERE action = 'support_access.end' AND support_access_id = ?`, [id])).rows;
  const expectCode = (res: { status: number; body: { code?: string } }, status: number, code: string) => expect({ status: res.status, code: res.body.code }).toEqual({ status, code });

  it('the link raced by two parallel starts signs in exactly once', async () => {
    const id: string = (await requestAccess({ reason: 'raced' }).expect(201)).body.id;
    const results = await Promise.all([supportStart(id), supportStart(id), supportStart(id)]);
    expect(results.map((res) => res.status).sort()).toEqual([302, 409, 409]);
    for (const res of results.filter((r) => r.status === 409)) expect(res.body.code).toBe('SUPPORT_ACCESS_ENDED');
    expect((await db().raw('SELECT count(*)::int AS n FROM gateway_sessions WHERE support_access_id = ?', [id])).rows[0].n).toBe(1);
  });

  it('a reason with a control character or a bidirectional override is refused (400), never a 500; line breaks are kept', async () => {
    for (const reason of ['before\u0000after', 'bell\u0007', 'invoices \u202Eseciovni', '\u2066hidden\u2069', '\n\t ']) {
      expectCode(await requestAccess({ reason }), 400, 'VALIDATION_FAILED');
    }
    expect((await requestAccess({ reason: 'Two lines:\nthe invoices page' })).status).toBe(201);
  });

  it('one person cannot be flooded with approval requests: 3 per 10 minutes whatever the operators, raced or ended, then 429', async () => {
    const asking = await addPlatform(harness);
    await updatePlatform(db(), asking.key, { supportAccess: 'approve', supportSignInUrl: SIGN_IN_ROUTE }, CLI_ACTOR, { requireHttps: false, outbound: harness.gateway.config.outbound });
    const wes = await signIn(harness, platform, WES);
    await signIn(harness, platform, XENA);
    const ask = (operator: SignedIn, who: string, reason: string) => asPerson(harness, operator.cookie).post('/v1/support-access').send({ person: who, platformKey: asking.key, reason });
    const first: string = (await ask(sue, WES.sub, 'one').expect(201)).body.id;
    const second: string = (await ask(tom, WES.sub, 'two').expect(201)).body.id;
    // Ending (refusing) a request does not free its place: the person has seen it.
    await asPerson(harness, sue.cookie).post(`/v1/support-access/${first}/end`).expect(200);
    await ask(sue, WES.sub, 'three').expect(201);
    for (const operator of [sue, tom]) {
      const refused = await ask(operator, WES.sub, 'four');
      expectCode(refused, 429, 'TOO_MANY_SUPPORT_REQUESTS');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(600);
    }
    // The limit is the operators', never the person's: she still answers (and ends) what she was asked.
    expect((await asPerson(harness, wes.cookie).post(`/v1/account/support-access/${second}/answer`).send({ decision: 'refuse' }).expect(200)).body.status).toBe('refused');
    expectCode(await ask(tom, WES.sub, 'five'), 429, 'TOO_MANY_SUPPORT_REQUESTS');
    // Requests that only tell the person ask nothing of them: not counted.
    await asPerson(harness, sue.cookie).post('/v1/support-access').send({ person: WES.sub, platformKey: platform.key, reason: 'told' }).expect(201);
    // Raced by two operators: exactly three pass.
    const raced = await Promise.all([sue, tom, sue, tom, sue].map((operator, i) => ask(operator, XENA.sub, `raced ${i}`)));
    expect(raced.map((res) => res.status).sort()).toEqual([201, 201, 201, 429, 429]);
    expect((await db().raw(`SELECT count(*)::int AS n FROM support_access a JOIN users u ON u.id = a.user_id WHERE u.sub = ?`, [XENA.sub])).rows[0].n).toBe(3);
  });

  it('GET /v1/me on a support session says who acts and until when; an ordinary session says nothing of it', async () => {
    const support = await supportSession('who am I');
    const me = (await api().get('/v1/me').set('Cookie', support.cookie).expect(200)).body;
    expect(me).toMatchObject({ user: { sub: RITA.sub }, permissions: [], act: { sub: SUE.sub, name: 'Sue Support' }, supportAccess: { id: support.id, endsAt: support.endsAt } });
    expect(me.session.expiresAt).toBe(support.endsAt);
    const own = (await asPerson(harness, rita.cookie).get('/v1/me').expect(200)).body;
    expect(own.act).toBeUndefined();
    expect(own.supportAccess).toBeUndefined();
    expectCode(await api().get('/v1/account/authentication-methods').set('Cookie', support.cookie), 403, 'SUPPORT_SESSION_FORBIDDEN');
    await asPerson(harness, rita.cookie).post(`/v1/account/support-access/${support.id}/end`).expect(200);
    await pollSets();
  });

  it('revoking the support session from the person\'s session list tells the platform support-access-ended, once', async () => {
    const support = await supportSession('revoked from the list');
    await asPerson(harness, rita.cookie).delete(`/v1/sessions/${support.sessionId}`).expect(204);
    const mine = (await asPerson(harness, rita.cookie).get('/v1/account/support-access').expect(200)).body.items.find((item: { id: string }) => item.id === support.id);
    expect(mine).toMatchObject({ status: 'ended', endedBy: 'person' });
    // Ending it again afterwards changes nothing and tells nobody again.
    await asPerson(harness, rita.cookie).post(`/v1/account/support-access/${support.id}/end`).expect(200);
    expect(endedEvents(await pollSets())).toEqual([{ session: support.sessionId, ended_by: 'person' }]);
    expect(await endAudits(support.id)).toEqual([{ ended_by: 'person', actor_type: 'system' }]);
  });

  it('an administrator revoking the support session is recorded as the administrator, not the person', async () => {
    const ada = await signIn(harness, platform, ADA);
    const support = await supportSession('revoked by an administrator');
    await asPerson(harness, ada.cookie).delete(`/v1/sessions/${support.sessionId}`).expect(204);
    const mine = (await asPerson(harness, rita.cookie).get('/v1/account/support-access').expect(200)).body.items.find((item: { id: string }) => item.id === support.id);
    expect(mine).toMatchObject({ status: 'ended', endedBy: 'administrator' });
    expect(endedEvents(await pollSets())).toEqual([{ session: support.sessionId, ended_by: 'administrator' }]);
    expect(await endAudits(support.id)).toEqual([{ ended_by: 'administrator', actor_type: 'system' }]);
  });

  it('the person revoking the session while the access is being ended elsewhere: no deadlock, the event left to the other ending', async () => {
    const support = await supportSession('raced ends');
    // Another ending (the operator's, the purge's) holds the access's row and then ends the session.
    const other = await db().transaction();
    try {
      await other.raw(`UPDATE support_access SET ended_at = now(), end_reason = 'operator' WHERE id = ?`, [support.id]);
      const revoke = asPerson(harness, rita.cookie).delete(`/v1/sessions/${support.sessionId}`).then((res) => res);
      await new Promise((resolve) => setTimeout(resolve, 500));
      await other.raw(`UPDATE gateway_sessions SET ended_at = now(), end_reason = 'revoked', revoked_at = now() WHERE id = ? AND ended_at IS NULL`, [support.sessionId]);
      await other.commit();
      expect((await revoke).status).toBe(204);
    } finally {
      if (!other.isCompleted()) await other.rollback();
    }
    // The revocation found the access being ended by the other and left the event to it.
    expect((await db().raw('SELECT end_reason FROM support_access WHERE id = ?', [support.id])).rows).toEqual([{ end_reason: 'operator' }]);
    expect(endedEvents(await pollSets())).toEqual([]);
  });

  it('the operator signing out on the platform ends the access, tells the platform once, and leaves the person\'s own sessions alone', async () => {
    const support = await supportSession('signed out');
    const res = await api().post('/v1/auth/logout').set('Cookie', support.cookie);
    expect(res.status).toBeLessThan(300);
    expectCode(await api().get('/v1/me').set('Cookie', support.cookie), 401, 'UNAUTHENTICATED');
    await asPerson(harness, rita.cookie).get('/v1/me').expect(200);
    const mine = (await asPerson(harness, rita.cookie).get('/v1/account/support-access').expect(200)).body.items.find((item: { id: string }) => item.id === support.id);
    expect(mine).toMatchObject({ status: 'ended', endedBy: 'operator' });
    expect(endedEvents(await pollSets())).toEqual([{ session: support.sessionId, ended_by: 'operator' }]);
  });

  it('a platform made sensitive, or turned off, while an access runs ends its session at once (ended_by platform), once', async () => {
    const rules = { requireHttps: false, outbound: harness.gateway.config.outbound };
    for (const patch of [{ sensitive: true }, { supportAccess: 'off' as const }]) {
      const support = await supportSession(`then ${Object.keys(patch)[0]}`);
      await updatePlatform(db(), platform.key, patch, CLI_ACTOR, rules);
      try {
        expectCode(await api().get('/v1/me').set('Cookie', support.cookie), 401, 'UNAUTHENTICATED');
        const mine = (await asPerson(harness, rita.cookie).get('/v1/account/support-access').expect(200)).body.items.find((item: { id: string }) => item.id === support.id);
        expect(mine).toMatchObject({ status: 'ended', endedBy: 'platform' });
        // (The raced access of the first test, signed in but never exchanged, ends with it.)
        const ended = endedEvents(await pollSets()) as { session: string; ended_by: string }[];
        expect(ended.filter((event) => event.session === support.sessionId)).toEqual([{ session: support.sessionId, ended_by: 'platform' }]);
        expect(new Set(ended.map((event) => event.ended_by))).toEqual(new Set(['platform']));
        expect(await endAudits(support.id)).toEqual([{ ended_by: 'platform', actor_type: 'system' }]);
        // The person's own sessions are not touched.
        await asPerson(harness, rita.cookie).get('/v1/me').expect(200);
      } finally {
        await updatePlatform(db(), platform.key, { sensitive: false, supportAccess: 'notify' }, CLI_ACTOR, rules);
      }
    }
  });

  it('a platform deactivated while an access runs ends it (ended_by platform), audited once; the platform hears it when it polls again after a reactivation', async () => {
    const support = await supportSession('then deactivated');
    await deactivatePlatform(db(), platform.key, CLI_ACTOR);
    try {
      expect((await db().raw('SELECT end_reason FROM support_access WHERE id = ?', [support.id])).rows).toEqual([{ end_reason: 'platform' }]);
      expect((await db().raw('SELECT end_reason FROM gateway_sessions WHERE id = ?', [support.sessionId])).rows).toEqual([{ end_reason: 'revoked' }]);
      expect(await endAudits(support.id)).toEqual([{ ended_by: 'platform', actor_type: 'system' }]);
      const mine = (await asPerson(harness, rita.cookie).get('/v1/account/support-access').expect(200)).body.items.find((item: { id: string }) => item.id === support.id);
      expect(mine).toMatchObject({ status: 'ended', endedBy: 'platform' });
      // Deactivating again changes nothing and records nothing.
      await deactivatePlatform(db(), platform.key, CLI_ACTOR);
      expect(await endAudits(support.id)).toHaveLength(1);
    } finally {
      await activatePlatform(db(), platform.key, CLI_ACTOR);
    }
    // Ended as the deactivation's first step, while the platform still received events: the event
    // waits, as every pending event of a deactivated platform does, for its next poll.
    expect(endedEvents(await pollSets())).toEqual([{ session: support.sessionId, ended_by: 'platform' }]);
  });

  it('an operator deleting their account ends their running access at once (ended_by operator) and any unused one', async () => {
    const asTom = (body: Record<string, unknown>) => asPerson(harness, tom.cookie).post('/v1/support-access').send({ person: RITA.sub, platformKey: platform.key, ...body });
    const running: string = (await asTom({ reason: 'running' }).expect(201)).body.id;
    const unused: string = (await asTom({ reason: 'unused' }).expect(201)).body.id;
    const url = new URL(startUrl(harness, platform.key, undefined, { supportAccess: running }));
    const code = new URL((await api().get(url.pathname + url.search).set('Cookie', tom.cookie).expect(302)).headers.location!).searchParams.get('code');
    const exchanged = await api().post('/v1/auth/exchange').set('Authorization', platform.basic).send({ code }).expect(200);
    await pollSets();
    expect((await asPerson(harness, tom.cookie).delete('/v1/account/me')).status).toBeLessThan(300);
    expectCode(await api().get('/v1/me').set('Cookie', `gw_session=${exchanged.body.session.gatewayToken}`), 401, 'UNAUTHENTICATED');
    const mine = (await asPerson(harness, rita.cookie).get('/v1/account/support-access').expect(200)).body.items;
    expect(mine.filter((item: { id: string }) => [running, unused].includes(item.id)).map((item: { status: string; endedBy: string }) => [item.status, item.endedBy])).toEqual([
      ['ended', 'operator'],
      ['ended', 'operator'],
    ]);
    expect(endedEvents(await pollSets())).toEqual([{ session: exchanged.body.session.id, ended_by: 'operator' }]);
  });

  it('approval cannot be forged: no cross-site form, no answer to a request that asks none, no answer after the operator ended it', async () => {
    const rules = { requireHttps: false, outbound: harness.gateway.config.outbound };
    const asking = await addPlatform(harness);
    await updatePlatform(db(), asking.key, { supportAccess: 'approve', supportSignInUrl: SIGN_IN_ROUTE }, CLI_ACTOR, rules);
    const id: string = (await requestAccess({ platformKey: asking.key, reason: 'please approve' }).expect(201)).body.id;
    const answer = (accessId: string) => api().post(`/v1/account/support-access/${accessId}/answer`).set('Cookie', rita.cookie);
    // A page elsewhere posting the person's browser (her cookie rides along; the browser says where from).
    expectCode(await answer(id).set('Origin', 'https://evil.example').send({ decision: 'approve' }), 403, 'ORIGIN_NOT_ALLOWED');
    expect((await asPerson(harness, rita.cookie).get('/v1/account/support-access').expect(200)).body.items.find((item: { id: string }) => item.id === id).status).toBe('pending');
    // The operator ends (refuses) the pending request: the person can no longer approve it.
    await asPerson(harness, sue.cookie).post(`/v1/support-access/${id}/end`).expect(200);
    expectCode(await answer(id).set('Origin', 'http://account.test').send({ decision: 'approve' }), 409, 'SUPPORT_ACCESS_ENDED');
    expectCode(await supportStart(id, asking.key), 409, 'SUPPORT_ACCESS_ENDED');
    // A request that only tells the person has nothing to approve.
    const told: string = (await requestAccess({ reason: 'told' }).expect(201)).body.id;
    expect((await answer(told).set('Origin', 'http://account.test').send({ decision: 'approve' })).status).toBe(409);
    expect((await db().raw(`SELECT count(*)::int AS n FROM audit_events WHERE action = 'support_access.approve'`)).rows[0].n).toBe(0);
  });

  it('the person deleting their account ends a running access (ended_by person) and tells the platform once', async () => {
    const una = await signIn(harness, platform, UNA);
    const id: string = (await requestAccess({ person: UNA.sub, reason: 'before she leaves' }).expect(201)).body.id;
    const code = new URL((await supportStart(id).expect(302)).headers.location!).searchParams.get('code');
    const exchanged = await api().post('/v1/auth/exchange').set('Authorization', platform.basic).send({ code }).expect(200);
    await pollSets();
    expect((await asPerson(harness, una.cookie).delete('/v1/account/me')).status).toBeLessThan(300);
    expectCode(await api().get('/v1/me').set('Cookie', `gw_session=${exchanged.body.session.gatewayToken}`), 401, 'UNAUTHENTICATED');
    expect((await db().raw('SELECT end_reason FROM support_access WHERE id = ?', [id])).rows).toEqual([{ end_reason: 'person' }]);
    expect(endedEvents(await pollSets())).toEqual([{ session: exchanged.body.session.id, ended_by: 'person' }]);
  });

  it('a support sign-in is never a step-up nor a fresh sign-in: a step-up\'s challenge or token, maxAge, forceLogin, requireSecondFactor are refused, nothing spent', async () => {
    const challenge = createHash('sha256').update('a step-up verifier of the platform, 43+ chars long').digest('base64url');
    // The platform asks for a step-up of Rita (her platform credential), with this challenge.
    const stepUp = await api().post('/v1/auth/step-up').set('Cookie', rita.credential).send({ returnTo: 'https://bff.example.test/home', handoffChallenge: challenge }).expect(200);
    const token = new URL(stepUp.body.url).searchParams.get('stepUp')!;
    const id: string = (await requestAccess({ reason: 'stepping up' }).expect(201)).body.id;
    const start = (extra: Record<string, string>) => {
      const url = new URL(startUrl(harness, platform.key, undefined, { supportAccess: id, ...extra }));
      return api().get(url.pathname + url.search).set('Cookie', sue.cookie);
    };
    // The step-up's challenge with its token stripped, as for every start.
    expectCode(await start({ handoffChallenge: challenge }), 400, 'STEP_UP_TOKEN_MISSING');
    // With the token: a support sign-in cannot answer a step-up.
    expectCode(await start({ handoffChallenge: challenge, stepUp: token }), 400, 'VALIDATION_FAILED');
    // Nor any fresh sign-in a platform asks for: the gateway refuses a login that cannot meet its request.
    for (const extra of [{ maxAge: '0' }, { forceLogin: 'true' }, { requireSecondFactor: 'true' }] as Record<string, string>[]) expectCode(await start(extra), 400, 'VALIDATION_FAILED');
    expect((await db().raw('SELECT used_at FROM support_access WHERE id = ?', [id])).rows).toEqual([{ used_at: null }]);
    expect((await start({})).status).toBe(302);
  });

  it('a support session makes no membership: the person who never used the platform does not become its member by support reading her status', async () => {
    const other = await addPlatform(harness);
    const vera = await signIn(harness, other, VERA);
    const id: string = (await requestAccess({ person: VERA.sub, reason: 'never used it' }).expect(201)).body.id;
    const code = new URL((await supportStart(id).expect(302)).headers.location!).searchParams.get('code');
    const exchanged = await api().post('/v1/auth/exchange').set('Authorization', platform.basic).send({ code }).expect(200);
    const support = `gw_session=${exchanged.body.session.gatewayToken}`;
    await api().get(`/v1/onboarding/${platform.key}/status`).set('Cookie', support).expect(200);
    await api().get(`/v1/onboarding/${platform.key}/requirements`).set('Cookie', support).expect(200);
    // (A platform's credential hears only of its own platform's membership: issue 36 review.)
    expect((await api().get('/v1/me').set('Cookie', support).expect(200)).body.memberships.map((m: { platformKey: string }) => m.platformKey)).not.toContain(platform.key);
    const { rows } = await db().raw('SELECT p.platform_key AS key FROM platform_memberships m JOIN platforms p ON p.id = m.platform_id WHERE m.user_id = ?', [vera.userId]);
    expect(rows.map((row: { key: string }) => row.key)).toEqual([other.key]);
  });

  it('every operation taking a gateway session is refused on a support session, or listed here with why it is safe', () => {
    const contract = parse(readFileSync(new URL('../../openapi/gateway.yaml', import.meta.url), 'utf8')) as { paths: Record<string, Record<string, Record<string, unknown>>> };
    const open: string[] = [];
    for (const methods of Object.values(contract.paths)) {
      for (const operation of Object.values(methods)) {
        if (typeof operation !== 'object' || !operation.operationId) continue;
        const schemes = ((operation.security as Record<string, unknown>[] | undefined) ?? []).flatMap((requirement) => Object.keys(requirement));
        // A support session is a platform credential in the gateway cookie (Bearer is the provider's).
        if (!schemes.includes('gatewayCookieAuth')) continue;
        if (operation['x-support-session'] === false || operation['x-platform-credential'] === false) continue;
        if (((operation['x-required-permissions'] as string[] | undefined) ?? []).length > 0) continue; // the session carries none
        open.push(operation.operationId as string);
      }
    }
    expect(open.sort()).toEqual(Object.keys(ALLOWED_ON_SUPPORT_SESSION).sort());
  });

  const endedEvents = (sets: JWTPayload[]) => eventsOfType(sets, ENDED);

  const pollSets = () => pollVerifiedSets(harness, platform);
});
