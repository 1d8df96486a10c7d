// Support access (issue 35's review): an operator who loses support:access, or whose session an
// administrator revokes, does not keep a running support session until its time. The login path
// pays nothing for it: the purge finds an operator's new sign-in without the permission, and an
// administrator's revocation ends the operator's running accesses. Real logins through the dev
// identity provider, real HTTP, real PostgreSQL; Security Event Tokens verified against the
// published keys.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import type { JWTPayload } from 'jose';
import { eventsOfType, pollVerifiedSets } from '../helpers/securityEventPoll.ts';
import { startHarness, addPlatform, startUrl, type Harness, type TestPlatform } from '../helpers/flowHarness.ts';
import { asPerson, person, signIn, type SignedIn } from '../helpers/dataRights.ts';
import { OidcBrowser } from '../helpers/oidcBrowser.ts';
import { DEV_USERS } from '../../src/devidp/users.ts';
import { CLI_ACTOR, updatePlatform } from '../../src/services/registry/index.ts';
import { schedulePurge } from '../../src/services/maintenance/maintenance.ts';

const SIGN_IN_ROUTE = 'https://bff.example.test/auth/login';
const RITA = person('rita');
const OLGA = { ...person('olga'), permissions: ['support:access'] };
const OTTO = { ...person('otto'), permissions: ['support:access'] };
const ADA = { ...person('ada'), permissions: ['platforms:admin'] };
const ENDED = 'urn:auth-gateway:secevent:support-access-ended';

describe('support access of an operator who loses support:access', () => {
  let harness: Harness;
  let platform: TestPlatform;
  let rita: SignedIn;
  const db = () => harness.database.db;
  const api = () => request(harness.gateway.app);

  beforeAll(async () => {
    // The development signing key (outside production): the SETs are verified against the published key set all the same.
    harness = await startHarness({}, { users: [...DEV_USERS, RITA, OLGA, OTTO, ADA] });
    platform = await addPlatform(harness);
    await updatePlatform(db(), platform.key, { supportAccess: 'notify', supportSignInUrl: SIGN_IN_ROUTE, eventDelivery: 'poll' }, CLI_ACTOR, { requireHttps: false, outbound: harness.gateway.config.outbound });
    rita = await signIn(harness, platform, RITA);
  });
  afterAll(async () => {
    await harness?.close();
  });

  /** A running support session of Rita's, started by `operator`, as her platform holds it. */
  const supportSession = async (operator: SignedIn, reason: string) => {
    const id: string = (await asPerson(harness, operator.cookie).post('/v1/support-access').send({ person: RITA.sub, platformKey: platform.key, reason }).expect(201)).body.id;
    const url = new URL(startUrl(harness, platform.key, undefined, { supportAccess: id }));
    const code = new URL((await api().get(url.pathname + url.search).set('Cookie', operator.cookie).expect(302)).headers.location!).searchParams.get('code');
    const exchanged = await api().post('/v1/auth/exchange').set('Authorization', platform.basic).send({ code }).expect(200);
    return { id, sessionId: exchanged.body.session.id as string, cookie: `gw_session=${exchanged.body.session.gatewayToken}` };
  };
  const statusOf = async (id: string) => {
    const item = (await asPerson(harness, rita.cookie).get('/v1/account/support-access').expect(200)).body.items.find((entry: { id: string }) => entry.id === id);
    return { status: item.status, endedBy: item.endedBy };
  };
  const endAudits = async (id: string) =>
    (await db().raw(`SELECT ended_by, actor_type FROM audit_events WHERE action = 'support_access.end' AND support_access_id = ?`, [id])).rows;

  it('an administrator revoking an operator\'s session ends the accesses the operator is running (administrator), once; unused ones stay', async () => {
    const olga = await signIn(harness, platform, OLGA);
    const ada = await signIn(harness, platform, ADA);
    const running = await supportSession(olga, 'running when revoked');
    const unused: string = (await asPerson(harness, olga.cookie).post('/v1/support-access').send({ person: RITA.sub, platformKey: platform.key, reason: 'not used yet' }).expect(201)).body.id;
    await pollSets();

    await asPerson(harness, ada.cookie).delete(`/v1/sessions/${olga.sessionId}`).expect(204);
    expect((await api().get('/v1/me').set('Cookie', running.cookie)).status).toBe(401);
    expect(await statusOf(running.id)).toEqual({ status: 'ended', endedBy: 'administrator' });
    expect(await endAudits(running.id)).toEqual([{ ended_by: 'administrator', actor_type: 'system' }]);
    expect(endedEvents(await pollSets())).toEqual([{ session: running.sessionId, ended_by: 'administrator' }]);
    // Using an unused one needs a live session holding support:access again.
    expect(await statusOf(unused)).toEqual({ status: 'active', endedBy: null });
    // The person's own session is not touched; revoking again changes nothing.
    await asPerson(harness, rita.cookie).get('/v1/me').expect(200);
    await asPerson(harness, ada.cookie).delete(`/v1/sessions/${olga.sessionId}`).expect(204);
    expect(await endAudits(running.id)).toHaveLength(1);
  });

  it('an administrator revoking a support session ends only that access, never the accesses the person runs as an operator', async () => {
    const otto = await signIn(harness, platform, OTTO);
    const ada = await signIn(harness, platform, ADA, new OidcBrowser());
    const ottos = await supportSession(otto, 'otto looks');
    // Otto is also a person someone else supports: Olga (signing in again, still an operator) runs an access to Otto's account.
    const olga = await signIn(harness, platform, OLGA, new OidcBrowser());
    const id: string = (await asPerson(harness, olga.cookie).post('/v1/support-access').send({ person: OTTO.sub, platformKey: platform.key, reason: 'otto as a person' }).expect(201)).body.id;
    const url = new URL(startUrl(harness, platform.key, undefined, { supportAccess: id }));
    const code = new URL((await api().get(url.pathname + url.search).set('Cookie', olga.cookie).expect(302)).headers.location!).searchParams.get('code');
    const ofOtto = (await api().post('/v1/auth/exchange').set('Authorization', platform.basic).send({ code }).expect(200)).body.session.id as string;
    await pollSets();
    await asPerson(harness, ada.cookie).delete(`/v1/sessions/${ofOtto}`).expect(204);
    expect(endedEvents(await pollSets())).toEqual([{ session: ofOtto, ended_by: 'administrator' }]);
    expect(await statusOf(ottos.id)).toEqual({ status: 'active', endedBy: null });
    await api().get('/v1/me').set('Cookie', ottos.cookie).expect(200);
    await asPerson(harness, otto.cookie).post(`/v1/support-access/${ottos.id}/end`).expect(200);
    await pollSets();
  });

  it('an operator whose next sign-in carries no support:access leaves their running accesses at the next purge (administrator), once; another operator\'s stay', async () => {
    const olga = await signIn(harness, platform, OLGA, new OidcBrowser());
    const otto = await signIn(harness, platform, OTTO, new OidcBrowser());
    const hers = await supportSession(olga, 'before the role goes');
    const his = await supportSession(otto, 'keeps the role');
    // Otto signs in again, still holding the permission.
    await signIn(harness, platform, OTTO, new OidcBrowser());
    await pollSets();
    // The role is taken from Olga at the provider; her next sign-in carries no support:access.
    harness.idp.setPermissions(OLGA.sub, []);
    const again = await signIn(harness, platform, OLGA, new OidcBrowser());
    expect((await asPerson(harness, again.cookie).get('/v1/me').expect(200)).body.permissions).toEqual([]);
    // The login itself ended nothing (it pays nothing for this); the purge does.
    expect(await statusOf(hers.id)).toEqual({ status: 'active', endedBy: null });

    const stop = schedulePurge(harness.gateway.deps);
    try {
      await expect.poll(async () => (await statusOf(hers.id)).status, { timeout: 15_000 }).toBe('ended');
    } finally {
      stop();
    }
    expect(await statusOf(hers.id)).toEqual({ status: 'ended', endedBy: 'administrator' });
    expect((await api().get('/v1/me').set('Cookie', hers.cookie)).status).toBe(401);
    expect(await endAudits(hers.id)).toEqual([{ ended_by: 'administrator', actor_type: 'system' }]);
    expect(endedEvents(await pollSets())).toEqual([{ session: hers.sessionId, ended_by: 'administrator' }]);
    expect(await statusOf(his.id)).toEqual({ status: 'active', endedBy: null });
    await api().get('/v1/me').set('Cookie', his.cookie).expect(200);
  });

  const endedEvents = (sets: JWTPayload[]) => eventsOfType(sets, ENDED);

  const pollSets = () => pollVerifiedSets(harness, platform);
});
