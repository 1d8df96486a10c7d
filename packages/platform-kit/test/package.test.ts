// The kit as a platform team gets it (issue 24, "Done when"): `npm pack` in its folder, the
// tarball unpacked into a fresh folder outside the repository as `npm install` puts it, its
// dependencies beside it (linked from this checkout: no registry in the test), and the README's
// ten lines as the app, in its own Node process. That app signs a person in through the real
// gateway, in two logins of one browser at once, calls /v1/me with the platform credential,
// and receives back-channel logout.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import request from 'supertest';
import { startHarness, type Harness } from '../../../test/helpers/flowHarness.ts';
import { OidcBrowser } from '../../../test/helpers/oidcBrowser.ts';
import { freePort } from '../../../src/db/embedded.ts';
import { CLI_ACTOR, createPlatform, updatePlatform } from '../../../src/services/registry/index.ts';
import { startBackchannelWorker, type BackchannelWorker } from '../../../src/services/backchannel/worker.ts';
import { generateSigningKeySpec } from '../../../src/security/signingKeys.ts';
import { loadContract } from '../../../src/contract.ts';

const KIT = fileURLToPath(new URL('..', import.meta.url));
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const PLATFORM = 'KIT_PACKAGE';

/** The README's app: the code block under "The ten lines". */
function readmeApp(): string {
  const readme = readFileSync(path.join(KIT, 'README.md'), 'utf8');
  const block = /## The ten lines\s+```js\n([\s\S]*?)```/.exec(readme);
  if (!block) throw new Error('the README has no code block under "The ten lines"');
  return block[1]!;
}

describe('the packed kit in a fresh folder, with the README as the app', () => {
  let harness: Harness;
  let worker: BackchannelWorker;
  let folder: string;
  let app: ChildProcess;
  let appUrl: string;
  let appLog = '';

  beforeAll(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), 'kit-try-'));
    // npm pack builds (prepack) and writes the tarball here; --json names it.
    const packed = spawnSync('npm', ['pack', '--json', '--pack-destination', folder], { cwd: KIT, encoding: 'utf8' });
    expect(packed.status, packed.stderr).toBe(0);
    const tarball = path.join(folder, (JSON.parse(packed.stdout) as Array<{ filename: string }>)[0]!.filename);
    const installed = path.join(folder, 'node_modules', '@auth-gateway', 'platform-kit');
    mkdirSync(installed, { recursive: true });
    expect(spawnSync('tar', ['-xzf', tarball, '-C', installed, '--strip-components=1']).status).toBe(0);
    for (const dependency of ['jose', 'openapi-fetch', 'openapi-typescript-helpers', 'express']) {
      symlinkSync(path.join(ROOT, 'node_modules', dependency), path.join(folder, 'node_modules', dependency));
    }
    writeFileSync(path.join(folder, 'package.json'), JSON.stringify({ name: 'kit-try', private: true, type: 'module' }));
    const port = await freePort();
    appUrl = `http://127.0.0.1:${port}`;
    writeFileSync(path.join(folder, 'app.mjs'), readmeApp().replace('app.listen(4000)', `app.listen(${port})`));

    harness = await startHarness({ GATEWAY_SIGNING_KEYS: generateSigningKeySpec('kit-package'), OUTBOUND_ALLOWED_PRIVATE_RANGES: '127.0.0.0/8' });
    worker = await startBackchannelWorker(harness.gateway.deps, { pollIntervalMs: 100 });
    const created = await createPlatform(
      harness.database.db,
      { platformKey: PLATFORM, displayName: 'Kit package', callbackUrl: `${appUrl}/auth/callback`, allowedReturnUrls: [`${appUrl}/`], defaultOnboardingMode: 'none' },
      CLI_ACTOR,
    );
    await updatePlatform(harness.database.db, PLATFORM, { backchannelLogoutUrl: `${appUrl}/auth/backchannel-logout` }, CLI_ACTOR, { requireHttps: false, outbound: harness.gateway.config.outbound });
    app = spawn(process.execPath, ['app.mjs'], {
      cwd: folder,
      env: {
        PATH: process.env.PATH,
        GATEWAY_URL: harness.baseUrl,
        PLATFORM_KEY: PLATFORM,
        CLIENT_ID: created.platform.clientId!,
        CLIENT_SECRET: created.clientSecret,
        PUBLIC_URL: appUrl,
        COOKIE_SECRET: randomBytes(32).toString('base64url'),
      },
    });
    app.stdout!.on('data', (chunk) => (appLog += chunk));
    app.stderr!.on('data', (chunk) => (appLog += chunk));
    // Up when it answers (its first line of output is not awaited: the README's app prints nothing).
    for (let tries = 0; (await fetch(appUrl, { redirect: 'manual' }).catch(() => null))?.status !== 303; tries += 1) {
      if (tries > 100 || app.exitCode !== null) throw new Error(`the README's app did not start: ${appLog}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });
  afterAll(async () => {
    app?.kill();
    await worker?.stop();
    await harness?.close();
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  it('ships built JavaScript, declarations and the README, nothing else', () => {
    const listed = spawnSync('tar', ['-tzf', path.join(folder, readdirTarball(folder))], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean);
    expect(listed).toEqual(expect.arrayContaining(['package/package.json', 'package/README.md', 'package/dist/index.js', 'package/dist/index.d.ts', 'package/dist/express.js', 'package/dist/verify.js', 'package/dist/events.js', 'package/dist/gateway.d.ts']));
    expect(listed.filter((file) => !/^package\/(package\.json|README\.md|dist\/[a-zA-Z]+\.(js|d\.ts))$/.test(file))).toEqual([]);
    // The contract's types themselves (in the repository src/gateway.ts only re-exports generated/): every path of the contract.
    const declared = readFileSync(path.join(folder, 'node_modules', '@auth-gateway', 'platform-kit', 'dist', 'gateway.d.ts'), 'utf8');
    expect(declared).not.toMatch(/generated\/gateway/);
    for (const contractPath of Object.keys(loadContract().paths ?? {})) expect(declared).toContain(`${JSON.stringify(contractPath)}: {`);
  });

  it('its declarations type a TypeScript back end: the typed client and the security events know the contract', () => {
    symlinkSync(path.join(ROOT, 'node_modules', '@types'), path.join(folder, 'node_modules', '@types'));
    writeFileSync(path.join(folder, 'check.ts'), `import { createPlatformKit, createSecurityEventReceiver, type Session } from '@auth-gateway/platform-kit';
import { securityEventHandler } from '@auth-gateway/platform-kit/express';
import { verifyLogoutToken } from '@auth-gateway/platform-kit/verify';
const kit = createPlatformKit({ gatewayUrl: '', platformKey: '', clientId: '', clientSecret: '', publicUrl: 'http://x', cookieSecret: '' });
export async function name(session: Session): Promise<string | null | undefined> {
  const { data } = await kit.client(session).GET('/v1/me');
  return data?.user.displayName;
}
// @ts-expect-error: no such path in the contract
export const wrong = (session: Session) => kit.client(session).GET('/v1/no-such-path');
export { verifyLogoutToken };
// Security Event Tokens: the event is typed by the contract's event types.
export const receiver = createSecurityEventReceiver({ gatewayUrl: '', clientId: '', onEvent: (event) => {
  if (event.type === 'urn:auth-gateway:secevent:profile-changed') { const fields: string[] = event.payload.fields; void fields; }
  // @ts-expect-error: not an event type of the contract
  if (event.type === 'urn:auth-gateway:secevent:no-such-event') return;
} });
export const pushRoute = securityEventHandler(receiver);
`);
    const checked = spawnSync(process.execPath, [path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--types', 'node', '--skipLibCheck', 'check.ts'], { cwd: folder, encoding: 'utf8' });
    expect(checked.status, checked.stdout + checked.stderr).toBe(0);
  });

  it('signs a person in twice at once, calls /v1/me with the platform credential, and receives back-channel logout', async () => {
    const browser = new OidcBrowser();
    const isOwn = (url: string) => url.startsWith(harness.baseUrl) || url.startsWith(harness.idp.issuer);
    const toLoginPage = async () => (await browser.followRedirects(await browser.get(`${appUrl}/`), { maxHops: 10 })).response;
    const [pageA, pageB] = [await toLoginPage(), await toLoginPage()];
    for (const loginPage of [pageB, pageA]) {
      const submitted = /name="password"/.test(loginPage.text) ? await browser.loginAtDevIdp(loginPage, 'alice', 'alice-password') : loginPage;
      const callback = await browser.followRedirects(submitted, { stopWhen: (url) => !isOwn(url), maxHops: 10 });
      expect(callback.stoppedAt).toMatch(new RegExp(`^${appUrl}/auth/callback\\?code=handoff_[^&]+&platformState=`));
      const home = await browser.followRedirects(await browser.get(callback.stoppedAt!), { maxHops: 3 });
      expect(home.response.text, appLog).toBe('Hello Alice Example');
    }
    // Signed out at the gateway (as the account center does): the app's session ends by its logout token.
    const gatewayCookie = `gw_session=${browser.cookiesFor(`${harness.baseUrl}/`).gw_session}`;
    await request(harness.gateway.app).post('/v1/auth/logout').set('Cookie', gatewayCookie).set('Origin', harness.gateway.config.accountCenterUrl).expect(204);
    await expect.poll(async () => (await browser.get(`${appUrl}/`)).location, { timeout: 10_000 }).toBe(`${appUrl}/auth/login`);
  });
});

function readdirTarball(folder: string): string {
  const name = readdirSync(folder).find((file) => file.endsWith('.tgz'));
  if (!name) throw new Error('no tarball');
  return name;
}
