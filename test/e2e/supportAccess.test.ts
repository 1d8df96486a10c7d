// Support access (issue 35): an operator sees a platform as a person sees it, with a reason, for
// minutes, and the person sees it. Real logins through the dev identity provider, real HTTP,
// real PostgreSQL; back-channel logout delivered by graphile-worker to a receiver that verifies
// every token against the gateway's JWKS; the Security Event Tokens polled (RFC 8936) and
// verified against the same published keys.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { createHash, randomBytes } from 'node:crypto';
import { pollVerifiedSets } from '../helpers/securityEventPoll.ts';
import { startHarness, addPlatform, startUrl, PLATFORM_CALLBACK, type Harness, type TestPlatform } from '../helpers/flowHarness.ts';
import { asPerson, person, signIn, type SignedIn } from '../helpers/dataRights.ts';
import { startLogoutReceiver } from '../helpers/logoutReceiver.ts';
import { DEV_USERS } from '../../src/devidp/users.ts';
import { CLI_ACTOR, createPlatform, updatePlatform } from '../../src/services/registry/index.ts';
import { startBackchannelWorker, type BackchannelWorker } from '../../src/services/backchannel/worker.ts';
import { generateSigningKeySpec } from '../../src/security/signingKeys.ts';
import { endExpiredSupportAccess } from '../../src/services/supportAccess/requests.ts';
import { purgeExpired } from '../../src/services/maintenance/repository.ts';
import { PURGE_GRACE_SECONDS } from '../../src/services/maintenance/maintenance.ts';
import { writeDataExportDocument } from '../../src/services/dataRights/document.ts';

const OWN_PLATFORM = 'ACCOUNT_CENTER_SA';
const SIGN_IN_ROUTE = 'https://bff.example.test/auth/login';
const PAULA = person('paula');
const PETER = person('peter');
const OTTO = { ...person('otto'), permissions: ['support:access'] };
const SAM = { ...person('sam'), familyName: 'Support', permissions: ['support:access'] };
// An administrator without support:access: platforms:admin never stands in for it.
const ADMIN = { ...person('adele'), permissions: ['platforms:admin', 'onboarding:schema:read', 'onboarding:schema:write'] };

describe('support access', () => {
  let harness: Harness;
  let worker: BackchannelWorker;
  let receiver: Awaited<ReturnType<typeof startLogoutReceiver>>;
  let approve: TestPlatform;
  let notify: TestPlatform;
  let off: TestPlatform;
  let sensitive: TestPlatform;
  let sam: SignedIn;
  let otto: SignedIn;
  let admin: SignedIn;
  let paula: SignedIn;
  let peter: SignedIn;

  const db = () => harness.database.db;
  const api = () => request(harness.gateway.app);
  const rules = () => ({ requireHttps: false, outbound: harness.gateway.config.outbound });

  beforeAll(async () => {
    harness = await startHarness(
      // A low limit of administrative writes, which support access requests count against (the last test).
      { GATEWAY_SIGNING_KEYS: generateSigningKeySpec('sa'), OUTBOUND_ALLOWED_PRIVATE_RANGES: '127.0.0.0/8', AUTH_PLATFORM_KEY: OWN_PLATFORM, RATE_LIMIT_ADMIN_WRITES_PER_MINUTE: '40' },
      { users: [...DEV_USERS, PAULA, PETER, OTTO, SAM, ADMIN] },
    );
    worker = await startBackchannelWorker(harness.gateway.deps, { pollIntervalMs: 100 });
    [approve, notify, off, sensitive] = [await addPlatform(harness), await addPlatform(harness), await addPlatform(harness), await addPlatform(harness)];
    receiver = await startLogoutReceiver(harness, approve.clientId);
    await updatePlatform(db(), approve.key, { supportAccess: 'approve', supportSignInUrl: SIGN_IN_ROUTE, backchannelLogoutUrl: receiver.url, eventDelivery: 'poll' }, CLI_ACTOR, rules());
    await updatePlatform(db(), notify.key, { supportAccess: 'notify', supportSignInUrl: SIGN_IN_ROUTE, handoffChallengeRequired: true, eventDelivery: 'poll' }, CLI_ACTOR, rules());
    await updatePlatform(db(), sensitive.key, { supportAccess: 'approve', supportSignInUrl: SIGN_IN_ROUTE, sensitive: true }, CLI_ACTOR, rules());
    await createPlatform(db(), { platformKey: OWN_PLATFORM, displayName: 'Account center', callbackUrl: PLATFORM_CALLBACK, allowedReturnUrls: ['https://bff.example.test/'], supportAccess: 'approve', supportSignInUrl: SIGN_IN_ROUTE }, CLI_ACTOR);
    sam = await signIn(harness, off, SAM);
    otto = await signIn(harness, off, OTTO);
    admin = await signIn(harness, off, ADMIN);
    paula = await signIn(harness, approve, PAULA);
    peter = await signIn(harness, approve, PETER);
  });
  afterAll(async () => {
    await worker?.stop();
    await receiver?.close();
    await harness?.close();
  });

  const requestAccess = (as: SignedIn, body: Record<string, unknown>) => asPerson(harness, as.cookie).post('/v1/support-access').send(body);
  /** The operator's browser at the start, as the platform's sign-in route sends it (supertest: JSON problems). */
  const supportStart = (platform: TestPlatform, id: string, cookie: string | null, extra: Record<string, string> = {}) => {
    const call = api().get(new URL(startUrl(harness, platform.key, undefined, { supportAccess: id, ...extra })).pathname + new URL(startUrl(harness, platform.key, undefined, { supportAccess: id, ...extra })).search);
    return cookie ? call.set('Cookie', cookie) : call;
  };
  const expectCode = (res: { status: number; body: { code?: string } }, status: number, code: string) => {
    expect({ status: res.status, code: res.body.code }).toEqual({ status, code });
  };

  it('needs support:access of its own (platforms:admin does not stand in), never a platform credential', async () => {
    const body = { person: PAULA.sub, platformKey: approve.key, reason: 'Paula cannot see her invoices' };
    expectCode(await requestAccess(admin, body), 403, 'FORBIDDEN');
    expectCode(await requestAccess(paula, body), 403, 'FORBIDDEN');
    expectCode(await api().post('/v1/support-access').set('Cookie', sam.credential).send(body), 403, 'FORBIDDEN');
    expectCode(await api().get('/v1/support-access').set('Cookie', admin.cookie), 403, 'FORBIDDEN');
    await api().post('/v1/support-access').send(body).expect(401);
  });

  it('refuses platforms that did not opt in, sensitive ones, the account center, no sign-in route, oneself, unknown people', async () => {
    const ask = (platformKey: string, who = PAULA.sub) => requestAccess(sam, { person: who, platformKey, reason: 'a reason' });
    for (const key of [off.key, sensitive.key, OWN_PLATFORM]) expectCode(await ask(key), 403, 'SUPPORT_ACCESS_NOT_ALLOWED');
    await updatePlatform(db(), off.key, { supportAccess: 'notify' }, CLI_ACTOR, rules());
    expectCode(await ask(off.key), 403, 'SUPPORT_ACCESS_NOT_ALLOWED'); // no supportSignInUrl
    await updatePlatform(db(), off.key, { supportAccess: 'off' }, CLI_ACTOR, rules());
    expectCode(await ask(approve.key, SAM.sub), 403, 'SUPPORT_ACCESS_NOT_ALLOWED');
    expectCode(await ask(approve.key, 'nobody@example.test'), 404, 'PERSON_NOT_FOUND');
    expectCode(await ask('NO_SUCH_PLATFORM'), 404, 'PLATFORM_NOT_FOUND');
    for (const bad of [{ reason: '' }, { reason: 'x'.repeat(501) }, { durationMinutes: 31 }, { durationMinutes: 0 }, { reason: undefined }]) {
      const res = await requestAccess(sam, { person: PAULA.sub, platformKey: approve.key, reason: 'r', ...bad });
      expectCode(res, 400, 'VALIDATION_FAILED');
    }
    expect((await db().raw('SELECT count(*)::int AS n FROM support_access')).rows[0].n).toBe(0);
  });

  it('approval: pending until the person approves (once, from her own browser); the operator signs in once, the exchange carries act; the person ends it', async () => {
    const requested = await requestAccess(sam, { person: PAULA.email, platformKey: approve.key, reason: 'Paula cannot see her invoices', durationMinutes: 10 });
    expect(requested.status).toBe(201);
    const id: string = requested.body.id;
    expect(requested.body).toMatchObject({ status: 'pending', mode: 'approve', durationMinutes: 10, signInUrl: null, operator: { sub: SAM.sub, name: 'Sam Support' }, person: { sub: PAULA.sub } });

    // Not usable before the approval.
    expectCode(await supportStart(approve, id, sam.cookie), 403, 'APPROVAL_REQUIRED');
    // The person sees it; nobody else answers for her: not the platform, not another person.
    const mine = (await asPerson(harness, paula.cookie).get('/v1/account/support-access').expect(200)).body.items;
    expect(mine.map((item: { id: string; status: string; reason: string }) => [item.id, item.status, item.reason])).toEqual([[id, 'pending', 'Paula cannot see her invoices']]);
    expectCode(await api().post(`/v1/account/support-access/${id}/answer`).set('Cookie', paula.credential).send({ decision: 'approve' }), 403, 'FORBIDDEN');
    expectCode(await asPerson(harness, peter.cookie).post(`/v1/account/support-access/${id}/answer`).send({ decision: 'approve' }), 404, 'SUPPORT_ACCESS_NOT_FOUND');
    // A double submission records one approval.
    const answers = await Promise.all([1, 2, 3].map(() => asPerson(harness, paula.cookie).post(`/v1/account/support-access/${id}/answer`).send({ decision: 'approve' })));
    expect(answers.map((res) => res.status)).toEqual([200, 200, 200]);
    expect(answers[0]!.body.status).toBe('active');
    expect((await db().raw(`SELECT count(*)::int AS n FROM audit_events WHERE action = 'support_access.approve'`)).rows[0].n).toBe(1);
    expectCode(await asPerson(harness, paula.cookie).post(`/v1/account/support-access/${id}/answer`).send({ decision: 'refuse' }), 409, 'SUPPORT_ACCESS_ENDED');

    const listed = (await asPerson(harness, sam.cookie).get('/v1/support-access').expect(200)).body.items.find((item: { id: string }) => item.id === id);
    expect(listed.signInUrl).toBe(`${SIGN_IN_ROUTE}?supportAccess=${id}`);
    // The link is the operator's: another operator's browser, no browser session, another platform sign nobody in.
    expectCode(await supportStart(approve, id, otto.cookie), 409, 'SUPPORT_ACCESS_ENDED');
    expectCode(await supportStart(approve, id, null), 401, 'UNAUTHENTICATED');
    expectCode(await supportStart(approve, id, sam.credential), 401, 'UNAUTHENTICATED');
    expectCode(await supportStart(notify, id, sam.cookie, { handoffChallenge: challengeOf('x'.repeat(43)) }), 409, 'SUPPORT_ACCESS_ENDED');

    // The operator's sign-in: straight to the platform's callback with a code and its correlation value.
    const started = await supportStart(approve, id, sam.cookie, { platformState: 'state-1' }).expect(302);
    const callback = new URL(started.headers.location!);
    expect(`${callback.origin}${callback.pathname}`).toBe(PLATFORM_CALLBACK);
    expect(callback.searchParams.get('platformState')).toBe('state-1');
    // Once.
    expectCode(await supportStart(approve, id, sam.cookie), 409, 'SUPPORT_ACCESS_ENDED');
    const exchanged = await api().post('/v1/auth/exchange').set('Authorization', approve.basic).send({ code: callback.searchParams.get('code') }).expect(200);
    expect(exchanged.body).toMatchObject({ user: { id: paula.userId, sub: PAULA.sub }, permissions: [], act: { sub: SAM.sub, name: 'Sam Support' }, supportAccess: { id } });
    expect(exchanged.body.supportAccess.endsAt).toBe(exchanged.body.session.expiresAt);
    const endsIn = Date.parse(exchanged.body.session.expiresAt) - Date.now();
    expect(endsIn).toBeGreaterThan(9 * 60_000);
    expect(endsIn).toBeLessThanOrEqual(10 * 60_000);
    const support = `gw_session=${exchanged.body.session.gatewayToken}`;
    const sessionId: string = exchanged.body.session.id;

    // The platform sees the person...
    expect((await api().get('/v1/me').set('Cookie', support).expect(200)).body.user.sub).toBe(PAULA.sub);
    // ...and the gateway refuses every account operation of the person on this session.
    const refused = [
      api().post('/v1/account/password').send({ currentPassword: 'a', newPassword: 'b'.repeat(12) }),
      api().delete('/v1/account/me'),
      api().post('/v1/account/data-exports'),
      api().get('/v1/account/data-exports'),
      api().delete(`/v1/account/apps/${approve.key}`),
      api().get('/v1/account/apps'),
      api().get('/v1/agreements'),
      api().post(`/v1/agreements/${approve.key}/acceptances`).send({ documentKey: 'terms', version: 1, language: 'en', sha256: 'a'.repeat(64) }),
      api().get('/v1/sessions'),
      api().delete('/v1/sessions'),
      api().delete(`/v1/sessions/${sessionId}`),
      api().patch('/v1/profile/me').send({ displayName: 'Not Paula' }),
      api().get('/v1/account/support-access'),
      api().post(`/v1/account/support-access/${id}/end`),
      api().post('/v1/support-access').send({ person: PETER.sub, platformKey: approve.key, reason: 'r' }),
    ];
    for (const call of refused) expectCode(await call.set('Cookie', support), 403, 'SUPPORT_SESSION_FORBIDDEN');

    // The platform hears it started: a SET verified against the published keys.
    const started_ = await pollSets(approve);
    expect(started_.map((set) => set.events)).toEqual([{ 'urn:auth-gateway:secevent:support-access-started': { session: sessionId, act_sub: SAM.sub, ends_at: Math.floor(Date.parse(exchanged.body.session.expiresAt) / 1000) } }]);

    // The person ends it: the session stops at once and the platform is told by back-channel logout.
    const ended = await asPerson(harness, paula.cookie).post(`/v1/account/support-access/${id}/end`).expect(200);
    expect(ended.body).toMatchObject({ status: 'ended', endedBy: 'person' });
    expectCode(await api().get('/v1/me').set('Cookie', support), 401, 'UNAUTHENTICATED');
    await expect.poll(() => receiver.tokens.map((token) => token.sid), { timeout: 15_000 }).toContain(sessionId);
    expect(receiver.tokens.find((token) => token.sid === sessionId)).toMatchObject({ aud: approve.clientId, sub: paula.userId });
    expect((await pollSets(approve)).map((set) => set.events)).toEqual([{ 'urn:auth-gateway:secevent:support-access-ended': { session: sessionId, ended_by: 'person' } }]);
    // Ending again changes nothing.
    expect((await asPerson(harness, paula.cookie).post(`/v1/account/support-access/${id}/end`).expect(200)).body.endedBy).toBe('person');
    // The person's data export holds the access and its trail.
    let text = '';
    await writeDataExportDocument(db(), paula.userId, { write: async (chunk) => void (text += chunk), close: async () => text.length });
    const exported = JSON.parse(text);
    expect(exported.supportAccess).toMatchObject([{ id, platformKey: approve.key, operatorSub: SAM.sub, operatorName: 'Sam Support', reason: 'Paula cannot see her invoices', durationMinutes: 10, mode: 'approve', sessionId, endedBy: 'person' }]);
    // Each step, and who ended it on the end (the person reads it as on their Support access page).
    expect(exported.auditEvents.filter((event: { supportAccessRequestId: string | null }) => event.supportAccessRequestId === id).map((event: { action: string; endedBy?: string }) => [event.action, event.endedBy ?? null])).toEqual([
      ['support_access.request', null],
      ['support_access.approve', null],
      ['support_access.use', null],
      ['support_access.end', 'person'],
    ]);

    // The audit log, as its API shows it to an administrator: each step, its actor, and the access it concerns.
    const audit = await asPerson(harness, admin.cookie).get(`/v1/audit-events?platformKey=${approve.key}`).expect(200);
    expect(audit.body.items.filter((item: { action: string }) => item.action.startsWith('support_access.')).reverse().map((item: { action: string; actor: { sub: string }; supportAccessId?: string }) => [item.action, item.actor.sub, item.supportAccessId])).toEqual([
      ['support_access.request', SAM.sub, id],
      ['support_access.approve', PAULA.sub, id],
      ['support_access.use', SAM.sub, id],
      ['support_access.end', PAULA.sub, id],
    ]);
  });

  it('a refused request, and one left unanswered for 10 minutes, sign nobody in', async () => {
    const refusedId = (await requestAccess(sam, { person: PETER.sub, platformKey: approve.key, reason: 'check' }).expect(201)).body.id;
    expect((await asPerson(harness, peter.cookie).post(`/v1/account/support-access/${refusedId}/answer`).send({ decision: 'refuse' }).expect(200)).body.status).toBe('refused');
    await asPerson(harness, peter.cookie).post(`/v1/account/support-access/${refusedId}/answer`).send({ decision: 'refuse' }).expect(200);
    expectCode(await supportStart(approve, refusedId, sam.cookie), 409, 'SUPPORT_ACCESS_ENDED');

    const lateId = (await requestAccess(sam, { person: PETER.sub, platformKey: approve.key, reason: 'check again' }).expect(201)).body.id;
    await db().raw(`UPDATE support_access SET requested_at = requested_at - interval '11 minutes', answer_by = answer_by - interval '11 minutes' WHERE id = ?`, [lateId]);
    expectCode(await asPerson(harness, peter.cookie).post(`/v1/account/support-access/${lateId}/answer`).send({ decision: 'approve' }), 409, 'SUPPORT_ACCESS_EXPIRED');
    expectCode(await supportStart(approve, lateId, sam.cookie), 409, 'SUPPORT_ACCESS_EXPIRED');
    const statuses = (await asPerson(harness, peter.cookie).get('/v1/account/support-access').expect(200)).body.items.map((item: { status: string }) => item.status);
    expect(statuses).toEqual(['refused', 'unanswered']); // newest request first: the unanswered one was moved 11 minutes back
  });

  it('notify: active at once; the operator ends it, or its time does; an expired grant never signs in', async () => {
    const verifier = randomBytes(32).toString('base64url');
    const id = (await requestAccess(sam, { person: PETER.sub, platformKey: notify.key, reason: 'told, not asked' }).expect(201)).body.id;
    const started = await supportStart(notify, id, sam.cookie, { handoffChallenge: challengeOf(verifier) }).expect(302);
    const code = new URL(started.headers.location!).searchParams.get('code');
    // The handoff is bound as every login's: the verifier is required.
    const exchanged = await api().post('/v1/auth/exchange').set('Authorization', notify.basic).send({ code, handoffVerifier: verifier }).expect(200);
    expect(exchanged.body.act).toEqual({ sub: SAM.sub, name: 'Sam Support' });
    const support = `gw_session=${exchanged.body.session.gatewayToken}`;
    await api().get('/v1/me').set('Cookie', support).expect(200);
    const ended = await asPerson(harness, sam.cookie).post(`/v1/support-access/${id}/end`).expect(200);
    expect(ended.body).toMatchObject({ status: 'ended', endedBy: 'operator' });
    expectCode(await api().get('/v1/me').set('Cookie', support), 401, 'UNAUTHENTICATED');
    const { rows } = await db().raw('SELECT end_reason FROM gateway_sessions WHERE id = ?', [exchanged.body.session.id]);
    expect(rows).toEqual([{ end_reason: 'revoked' }]);

    // Time: a running support session ends at the access's end (and the purge tells the platform).
    const timed = (await requestAccess(sam, { person: PETER.sub, platformKey: notify.key, reason: 'short' }).expect(201)).body.id;
    const code2 = new URL((await supportStart(notify, timed, sam.cookie, { handoffChallenge: challengeOf(verifier) }).expect(302)).headers.location!).searchParams.get('code');
    const second = await api().post('/v1/auth/exchange').set('Authorization', notify.basic).send({ code: code2, handoffVerifier: verifier }).expect(200);
    await db().raw(`UPDATE support_access SET ends_at = now() - interval '1 second' WHERE id = ?`, [timed]);
    await db().raw(`UPDATE gateway_sessions SET expires_at = now() - interval '1 second' WHERE id = ?`, [second.body.session.id]);
    expectCode(await api().get('/v1/me').set('Cookie', `gw_session=${second.body.session.gatewayToken}`), 401, 'SESSION_EXPIRED');
    expect(await endExpiredSupportAccess(db())).toBe(1);
    expect(await endExpiredSupportAccess(db())).toBe(0);
    const ends = (await pollSets(notify)).map((set) => set.events as Record<string, { ended_by?: string; session: string }>);
    expect(ends.filter((events) => events['urn:auth-gateway:secevent:support-access-ended']).map((events) => events['urn:auth-gateway:secevent:support-access-ended'])).toEqual([
      { session: exchanged.body.session.id, ended_by: 'operator' },
      { session: second.body.session.id, ended_by: 'expired' },
    ]);
    expect((await db().raw('SELECT end_reason FROM gateway_sessions WHERE id = ?', [second.body.session.id])).rows).toEqual([{ end_reason: 'expired' }]);
    expect((await asPerson(harness, peter.cookie).get('/v1/account/support-access').expect(200)).body.items[0]).toMatchObject({ id: timed, status: 'expired', endedBy: 'expired' });
    // Every end is audited once, with who ended it; the purge's end by the gateway itself.
    const audited = async (accessId: string) =>
      (await db().raw(`SELECT ended_by, actor_type, actor_sub FROM audit_events WHERE action = 'support_access.end' AND support_access_id = ?`, [accessId])).rows;
    expect(await audited(id)).toEqual([{ ended_by: 'operator', actor_type: 'user', actor_sub: SAM.sub }]);
    expect(await audited(timed)).toEqual([{ ended_by: 'expired', actor_type: 'system', actor_sub: null }]);
    // The purge removes the support session a day later like any other; the history keeps the access.
    await db().raw(`UPDATE gateway_sessions SET expires_at = now() - interval '2 days' WHERE id = ?`, [second.body.session.id]);
    await db().raw(`UPDATE handoff_codes SET expires_at = now() - interval '2 days' WHERE session_id = ?`, [second.body.session.id]);
    await db().raw(`UPDATE auth_transactions SET expires_at = now() - interval '2 days' WHERE session_id = ?`, [second.body.session.id]);
    expect((await purgeExpired(db(), PURGE_GRACE_SECONDS)).sessions).toBeGreaterThanOrEqual(1);
    expect((await db().raw('SELECT session_id, used_at IS NOT NULL AS used FROM support_access WHERE id = ?', [timed])).rows).toEqual([{ session_id: null, used: true }]);

    // A grant whose time ran out before it was used signs nobody in.
    const unused = (await requestAccess(sam, { person: PETER.sub, platformKey: notify.key, reason: 'too late' }).expect(201)).body.id;
    await db().raw(`UPDATE support_access SET ends_at = now() - interval '1 second' WHERE id = ?`, [unused]);
    expectCode(await supportStart(notify, unused, sam.cookie, { handoffChallenge: challengeOf(verifier) }), 409, 'SUPPORT_ACCESS_EXPIRED');
    expectCode(await supportStart(notify, '00000000-0000-4000-8000-000000000000', sam.cookie, { handoffChallenge: challengeOf(verifier) }), 404, 'SUPPORT_ACCESS_NOT_FOUND');
  });

  it('the support session is in the person\'s session list; revoking it there ends the access too', async () => {
    const verifier = randomBytes(32).toString('base64url');
    const id = (await requestAccess(sam, { person: PETER.sub, platformKey: notify.key, reason: 'listed' }).expect(201)).body.id;
    const code = new URL((await supportStart(notify, id, sam.cookie, { handoffChallenge: challengeOf(verifier) }).expect(302)).headers.location!).searchParams.get('code');
    const exchanged = await api().post('/v1/auth/exchange').set('Authorization', notify.basic).send({ code, handoffVerifier: verifier }).expect(200);
    const listed = (await asPerson(harness, peter.cookie).get('/v1/sessions').expect(200)).body.items.map((session: { id: string }) => session.id);
    expect(listed).toContain(exchanged.body.session.id);
    await asPerson(harness, peter.cookie).delete(`/v1/sessions/${exchanged.body.session.id}`).expect(204);
    expectCode(await api().get('/v1/me').set('Cookie', `gw_session=${exchanged.body.session.gatewayToken}`), 401, 'UNAUTHENTICATED');
    const mine = (await asPerson(harness, peter.cookie).get('/v1/account/support-access').expect(200)).body.items.find((item: { id: string }) => item.id === id);
    expect(mine).toMatchObject({ status: 'ended', endedBy: 'person' });
    expect(mine.endedAt).not.toBeNull();
  });

  it('a platform turned off (or marked sensitive) after the request is not entered', async () => {
    const id = (await requestAccess(sam, { person: PETER.sub, platformKey: notify.key, reason: 'then turned off' }).expect(201)).body.id;
    await updatePlatform(db(), notify.key, { sensitive: true }, CLI_ACTOR, rules());
    try {
      expectCode(await supportStart(notify, id, sam.cookie, { handoffChallenge: challengeOf('y'.repeat(43)) }), 403, 'SUPPORT_ACCESS_NOT_ALLOWED');
      expect((await db().raw('SELECT used_at FROM support_access WHERE id = ?', [id])).rows[0].used_at).toBeNull();
    } finally {
      await updatePlatform(db(), notify.key, { sensitive: false }, CLI_ACTOR, rules());
    }
  });

  it('requests count against the operator\'s limit of administrative writes', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 41; i += 1) statuses.push((await requestAccess(otto, { person: PETER.sub, platformKey: off.key, reason: `try ${i}` })).status);
    expect(statuses.slice(0, 40).every((status) => status === 403)).toBe(true);
    expectCode(await requestAccess(otto, { person: PETER.sub, platformKey: off.key, reason: 'one more' }), 429, 'RATE_LIMITED');
    // Another operator's budget is their own.
    expect((await requestAccess(sam, { person: PETER.sub, platformKey: notify.key, reason: 'still mine' })).status).toBe(201);
  });

  const pollSets = (platform: TestPlatform) => pollVerifiedSets(harness, platform);
});

function challengeOf(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}
