// `npm run gateway -- support request|list|end` (issue 35) against the real gateway over HTTP,
// as the operator whose access token (from the dev provider) is in GATEWAY_ACCESS_TOKEN.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, addPlatform, browserLogin, type Harness, type TestPlatform } from '../helpers/flowHarness.ts';
import { obtainTokens } from '../helpers/oidcBrowser.ts';
import { runSupportCommand } from '../../src/cli/support.ts';
import { CLI_ACTOR, updatePlatform } from '../../src/services/registry/index.ts';
import { PERMISSION_SCOPES } from '../../src/devidp/users.ts';

const ADMIN = { username: 'admin', password: 'admin-password' };
const ALICE = { username: 'alice', password: 'alice-password' };

describe('support CLI', () => {
  let harness: Harness;
  let platform: TestPlatform;
  let off: TestPlatform;
  let token: string;

  beforeAll(async () => {
    harness = await startHarness();
    platform = await addPlatform(harness);
    off = await addPlatform(harness);
    await updatePlatform(harness.database.db, platform.key, { supportAccess: 'notify', supportSignInUrl: 'https://bff.example.test/auth/login' }, CLI_ACTOR, { requireHttps: false, outbound: harness.gateway.config.outbound });
    // The operator and the person have signed in through the gateway once.
    await browserLogin(harness, platform.key, ADMIN);
    await browserLogin(harness, platform.key, ALICE);
    const oidc = harness.gateway.config.oidc;
    token = (await obtainTokens({
      issuer: harness.idp.issuer,
      clientId: oidc.clientId!,
      clientSecret: oidc.clientSecret!,
      redirectUri: `${harness.baseUrl}/v1/auth/callback`,
      ...ADMIN,
      scope: ['openid', 'profile', 'email', ...PERMISSION_SCOPES].join(' '),
    })).accessToken;
  });
  afterAll(async () => {
    await harness?.close();
  });

  async function run(argv: string[], env: Record<string, string> = { GATEWAY_ACCESS_TOKEN: token, GATEWAY_URL: harness.baseUrl }) {
    let stdout = '';
    let stderr = '';
    const code = await runSupportCommand(argv, { stdout: (text) => (stdout += text), stderr: (text) => (stderr += text), env });
    return { code, stdout, stderr };
  }

  it('requests, lists and ends as the operator of the access token', async () => {
    const requested = await run(['request', '--person', 'alice@example.test', '--platform', platform.key, '--reason', 'Alice sees an empty page', '--minutes', '5', '--json']);
    expect(requested.stderr).toBe('');
    expect(requested.code).toBe(0);
    const access = JSON.parse(requested.stdout);
    expect(access).toMatchObject({ status: 'active', durationMinutes: 5, operator: { sub: 'dev-user-admin' }, person: { sub: 'dev-user-alice' }, signInUrl: `https://bff.example.test/auth/login?supportAccess=${access.id}` });

    const listed = await run(['list']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(`${access.id}  active  ${platform.key}`);
    expect(listed.stdout).toContain('reason: Alice sees an empty page');
    expect(listed.stdout).toContain(`sign-in link: https://bff.example.test/auth/login?supportAccess=${access.id}`);

    const ended = await run(['end', access.id]);
    expect(ended.code).toBe(0);
    expect(ended.stdout).toContain(`${access.id}  ended`);
    const row = await harness.database.db.raw('SELECT end_reason FROM support_access WHERE id = ?', [access.id]);
    expect(row.rows).toEqual([{ end_reason: 'operator' }]);
  });

  it('says what was refused, what is missing, and what is wrong on the command line', async () => {
    const refused = await run(['request', '--person', 'alice@example.test', '--platform', off.key, '--reason', 'r']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^gateway: SUPPORT_ACCESS_NOT_ALLOWED: /);
    expect((await run(['list'], { GATEWAY_URL: harness.baseUrl })).code).toBe(78);
    expect((await run(['list'], { GATEWAY_ACCESS_TOKEN: 'not-a-token', GATEWAY_URL: harness.baseUrl })).stderr).toMatch(/^gateway: ACCESS_TOKEN_INVALID/);
    expect((await run(['request', '--person', 'x'])).code).toBe(2);
    expect((await run(['end'])).code).toBe(2);
    expect((await run(['frobnicate'])).code).toBe(2);
    expect((await run(['--help'])).stdout).toContain('support request --person SUB_OR_EMAIL');
  });
});
