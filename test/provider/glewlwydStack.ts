// Glewlwyd 2.7 (Debian `glewlwyd`) for the one check LemonLDAP::NG 2.16 cannot serve: it sends
// OpenID Connect Back-Channel Logout tokens. Started on a free loopback port in a temporary
// folder: its SQLite database from Debian's schema, its configuration (glewlwyd.conf, from
// Debian's template), a copy of its web pages (Debian's copy links config.json to a folder), and,
// through its administration API, the OpenID Connect plugin (an RSA key made here), one user and
// the gateway's client with its back-channel logout URL. stop() kills it and removes the folder.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../../src/db/embedded.ts';
import { waitFor } from './llngStack.ts';

const SCHEMA = '/usr/share/dbconfig-common/data/glewlwyd/install/sqlite3';
const TEMPLATE = '/usr/share/glewlwyd/templates/glewlwyd-debian.conf.properties';
const WEBAPP = '/usr/share/glewlwyd/webapp';
const WEBAPP_CONFIG = '/etc/glewlwyd/config-2.7.json/config.json';
/** Debian's schema creates this administrator (its documented default password). */
const ADMIN = { username: 'admin', password: 'password' };

export const GLEWLWYD_USER = { login: 'rose', password: `rose-${randomBytes(6).toString('hex')}`, name: 'Rose Tyler', email: 'rose@example.org' };

export function glewlwydMissing(): string | null {
  for (const file of ['/usr/bin/glewlwyd', SCHEMA, TEMPLATE, WEBAPP_CONFIG, '/usr/bin/sqlite3']) if (!existsSync(file)) return file;
  return null;
}

/**
 * Installs Debian's glewlwyd and sqlite3 when missing (as root; the global setup calls it). Its
 * package asks how to configure a database unless `glewlwyd/config_type` is preseeded to "No
 * configuration" (this suite makes its own SQLite database). Returns why it could not, or null.
 */
export function installGlewlwyd(log: (line: string) => void): string | null {
  if (!glewlwydMissing()) return null;
  if (process.getuid?.() !== 0) return 'not root';
  log('installing glewlwyd, sqlite3 (Debian)');
  try {
    execFileSync('debconf-set-selections', { input: 'glewlwyd glewlwyd/config_type select No configuration\n' });
    // A fresh machine may have stale package lists (the LemonLDAP::NG install updates them only
    // when it installs something itself).
    execFileSync('apt-get', ['update', '-qq'], { stdio: 'ignore' });
    execFileSync('apt-get', ['install', '-y', '-qq', 'glewlwyd', 'sqlite3'], { stdio: 'ignore', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  } catch (error) {
    return `apt-get install glewlwyd sqlite3 failed: ${(error as Error).message.split('\n')[0]}`;
  }
  return glewlwydMissing();
}

export interface GlewlwydStack {
  issuer: string;
  /** Registers another confidential client (another application of the same provider). */
  addClient(clientId: string, clientSecret: string, redirectUri: string): Promise<void>;
  logs(): string;
  stop(): Promise<void>;
}

export async function startGlewlwyd(options: { gatewayUrl: string; clientId: string; clientSecret: string; log: (line: string) => void }): Promise<GlewlwydStack> {
  const folder = await mkdtemp(path.join(tmpdir(), 'auth-gateway-glewlwyd-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const issuer = `${base}/api/oidc`;
  let child: ChildProcess | null = null;
  let admin: (method: string, route: string, body: unknown) => Promise<void> = async () => undefined;
  const output: string[] = [];
  const stop = async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child!.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child?.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    }
    await rm(folder, { recursive: true, force: true });
  };
  try {
    const database = path.join(folder, 'glewlwyd.db');
    execFileSync('sqlite3', [database], { input: await readFile(SCHEMA) });
    // Debian's schema stores a client's post_logout_redirect_uri (one); its OpenID Connect plugin
    // reads post_logout_redirect_uris (a list) at the end-session page: store that property too.
    execFileSync('sqlite3', [database, `UPDATE g_client_module_instance SET gcmi_parameters = json_set(gcmi_parameters, '$."data-format".post_logout_redirect_uris', json('{"multiple":true,"read":true,"write":true}')) WHERE gcmi_name = 'database'`]);
    const webapp = path.join(folder, 'webapp');
    await cp(WEBAPP, webapp, { recursive: true, dereference: true });
    await rm(path.join(webapp, 'config.json'), { recursive: true, force: true });
    await cp(WEBAPP_CONFIG, path.join(webapp, 'config.json'));
    const config = (await readFile(TEMPLATE, 'utf8'))
      .replace(/^port=.*$/m, `port=${port}`)
      .replace('_G_EXTRNAL_URL_', base)
      .replace(/^log_mode=.*$/m, 'log_mode="console"')
      .replace(/^@include.*$/m, `database = { type = "sqlite3"; path = "${database}"; };`)
      .replace(/^# *static_files_path=.*$/m, `static_files_path="${webapp}/"`);
    await writeFile(path.join(folder, 'glewlwyd.conf'), config);
    child = spawn('/usr/bin/glewlwyd', [`--config-file=${path.join(folder, 'glewlwyd.conf')}`], { cwd: folder, stdio: ['ignore', 'pipe', 'pipe'] });
    const keep = (chunk: Buffer) => {
      for (const line of chunk.toString().split('\n')) if (line.trim()) output.push(line);
      if (output.length > 300) output.splice(0, output.length - 300);
    };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    await waitFor('Glewlwyd to answer', 20_000, async () => {
      if (child!.exitCode !== null) throw new Error(`glewlwyd exited with ${child!.exitCode}`);
      return (await fetch(`${base}/config/`).catch(() => null))?.status === 200;
    });

    // The administration API, with the administrator's session cookie.
    const login = await fetch(`${base}/api/auth/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(ADMIN) });
    if (login.status !== 200) throw new Error(`Glewlwyd administrator login: ${login.status}`);
    const cookie = login.headers.getSetCookie().map((line) => line.split(';')[0]).join('; ');
    admin = async (method: string, route: string, body: unknown) => {
      const response = await fetch(`${base}/api${route}`, { method, headers: { cookie, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      if (response.status !== 200) throw new Error(`Glewlwyd ${method} ${route}: ${response.status} ${await response.text()}`);
    };
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    // glewlwyd/oidc-plugin.json: "back-channel-logout-allowed" sends the logout tokens, and
    // "front-channel-logout-allowed" must be true as well: without it Glewlwyd's end-session page
    // gets 400 from GET /api/oidc/session/{sid}/{client_id} (its list of the session's clients)
    // and never reaches DELETE /api/oidc/session/{sid}, the call that sends the logout tokens.
    const plugin = JSON.parse(await readFile(path.join(import.meta.dirname, 'glewlwyd', 'oidc-plugin.json'), 'utf8')) as { parameters: Record<string, unknown> };
    Object.assign(plugin.parameters, {
      iss: issuer,
      key: privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(),
      cert: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    });
    await admin('POST', '/mod/plugin/', plugin);
    await admin('POST', '/user/', { username: GLEWLWYD_USER.login, name: GLEWLWYD_USER.name, email: GLEWLWYD_USER.email, password: GLEWLWYD_USER.password, scope: ['openid'], enabled: true });
    await admin('POST', '/client/', {
      client_id: options.clientId,
      name: 'Authentication gateway',
      confidential: true,
      client_secret: options.clientSecret,
      token_endpoint_auth_method: ['client_secret_basic'],
      redirect_uri: [`${options.gatewayUrl}/v1/auth/callback`],
      authorization_type: ['code'],
      scope: ['openid'],
      post_logout_redirect_uri: `${options.gatewayUrl}/v1/auth/logged-out`,
      post_logout_redirect_uris: [`${options.gatewayUrl}/v1/auth/logged-out`],
      backchannel_logout_uri: `${options.gatewayUrl}/v1/auth/backchannel-logout`,
      backchannel_logout_session_required: '1',
      enabled: true,
    });
    options.log(`Glewlwyd at ${base} (issuer ${issuer}) in ${folder}`);
  } catch (error) {
    await stop();
    throw new Error(`${(error as Error).message}\n--- glewlwyd\n${output.slice(-40).join('\n')}`);
  }
  return {
    issuer,
    addClient: (clientId, clientSecret, redirectUri) => admin('POST', '/client/', {
      client_id: clientId, name: clientId, confidential: true, client_secret: clientSecret, token_endpoint_auth_method: ['client_secret_basic'],
      redirect_uri: [redirectUri], authorization_type: ['code'], scope: ['openid'], post_logout_redirect_uri: redirectUri, post_logout_redirect_uris: [redirectUri], backchannel_logout_uri: redirectUri, enabled: true,
    }),
    logs: () => output.slice(-80).join('\n'),
    stop,
  };
}
