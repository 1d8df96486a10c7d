// LemonLDAP::NG 2.16 (Debian) for the provider suite: its portal under llng-fastcgi-server
// (FastCGI) behind nginx, as Debian's portal-nginx.conf serves it, on free loopback ports, with
// everything under a temporary folder: its local configuration (lemonldap-ng.ini, given through
// LLNG_DEFAULTCONFFILE; the system's /etc/lemonldap-ng is never read), the File configuration
// backend (conf/lmConf-N.json, from the template lemonldap/lmConf.json next to this file), and
// file-based sessions. stop() kills both processes and removes the folder.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { chmod, chown, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { freePort } from '../../src/db/embedded.ts';

const TEMPLATES = path.join(import.meta.dirname, 'lemonldap');
/** The web server's user when run as root (llng-fastcgi-server refuses to run as root). */
const SERVICE_USER = 'www-data';

/** Debian package → a file it installs. */
const PACKAGES: [string, string][] = [
  ['lemonldap-ng-fastcgi-server', '/usr/sbin/llng-fastcgi-server'],
  ['liblemonldap-ng-portal-perl', '/usr/share/perl5/Lemonldap/NG/Portal.pm'],
  ['lemonldap-ng', '/usr/share/lemonldap-ng/bin/rotateOidcKeys'],
  ['nginx', '/usr/sbin/nginx'],
  // The browser the checks drive (through playwright-core; never a downloaded one).
  ['chromium', '/usr/bin/chromium'],
  // Recommended by the portal, not required by it: TOTP needs Convert::Base32, the key set (jwks) big numbers.
  ['libconvert-base32-perl', '/usr/share/perl5/Convert/Base32.pm'],
  ['libdigest-hmac-perl', '/usr/share/perl5/Digest/HMAC_SHA1.pm'],
  ['libcrypt-openssl-bignum-perl', '/usr/lib/x86_64-linux-gnu/perl5/5.36/Crypt/OpenSSL/Bignum.pm'],
];

export function missingPackages(): string[] {
  return PACKAGES.filter(([, file]) => {
    try {
      execFileSync('test', ['-e', file]);
      return false;
    } catch {
      return true;
    }
  }).map(([name]) => name);
}

export interface LlngStack {
  /** The portal's URL and the OpenID issuer (no trailing slash). */
  issuer: string;
  folder: string;
  /** The configuration now in force (a parsed lmConf-N.json). */
  config(): Promise<Record<string, unknown>>;
  /** Saves `change(config)` as the next configuration number; the portal reads it within about a second. */
  updateConfig(change: (config: Record<string, unknown>) => void): Promise<void>;
  /** LLNG's own key rotation script (rotateOidcKeys): a new signing key, the old one removed. */
  rotateKeys(): Promise<void>;
  /** Registers a TOTP secret (base32) for a user, as LLNG's self-registration would (lemonldap/register-totp.pl). */
  registerTotp(login: string, base32Secret: string): void;
  /** Runs a LemonLDAP::NG command-line tool against this instance's configuration. */
  cli(command: string, args: string[]): string;
  logs(): string;
  stop(): Promise<void>;
}

export interface LlngOptions {
  gatewayUrl: string;
  clientId: string;
  clientSecret: string;
  log: (line: string) => void;
}

function fill(template: string, values: Record<string, string>): string {
  return template.replace(/@([A-Z_]+)@/g, (whole, name: string) => {
    if (!(name in values)) throw new Error(`no value for ${whole} in a LemonLDAP::NG template`);
    return values[name]!;
  });
}

/** A JSON string's inside: the PEM keys go into the JSON template as strings. */
const jsonInside = (text: string) => JSON.stringify(text).slice(1, -1);

export async function startLlng(options: LlngOptions): Promise<LlngStack> {
  const asRoot = userInfo().uid === 0;
  const uid = asRoot ? Number(execFileSync('id', ['-u', SERVICE_USER]).toString().trim()) : userInfo().uid;
  const gid = asRoot ? Number(execFileSync('id', ['-g', SERVICE_USER]).toString().trim()) : userInfo().gid;
  const folder = await mkdtemp(path.join(tmpdir(), 'auth-gateway-llng-'));
  const port = await freePort();
  const fcgiPort = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const children: { name: string; child: ChildProcess; output: string[] }[] = [];

  const stop = async () => {
    for (const { child } of children.reverse()) {
      if (child.exitCode !== null || child.signalCode !== null) continue;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      // Each runs in its own process group: the FastCGI manager's workers and nginx's worker go too.
      try { process.kill(-child.pid!, 'SIGTERM'); } catch { /* gone */ }
      const timer = setTimeout(() => { try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* gone */ } }, 5000);
      await exited;
      clearTimeout(timer);
    }
    await rm(folder, { recursive: true, force: true });
  };

  try {
    for (const dir of ['conf', 'sessions', 'sessions/lock', 'psessions', 'psessions/lock', 'nginx']) await mkdir(path.join(folder, dir), { recursive: true });
    const ini = fill(await readFile(path.join(TEMPLATES, 'lemonldap-ng.ini'), 'utf8'), { FOLDER: folder, LOG_LEVEL: process.env.LLNG_LOG_LEVEL ?? 'notice' });
    await writeFile(path.join(folder, 'lemonldap-ng.ini'), ini);
    const keys = newSigningKey();
    const lmConf = fill(await readFile(path.join(TEMPLATES, 'lmConf.json'), 'utf8'), {
      PORTAL: issuer,
      FOLDER: folder,
      GATEWAY: options.gatewayUrl,
      CLIENT_ID: options.clientId,
      CLIENT_SECRET: options.clientSecret,
      PRIVATE_KEY: jsonInside(keys.privateKey),
      PUBLIC_KEY: jsonInside(keys.publicKey),
      KEY_ID: keys.keyId,
      // Its handler refuses a configuration whose date is 0.
      DATE: String(Math.floor(Date.now() / 1000)),
    });
    JSON.parse(lmConf); // a template that is not JSON fails here, not in Perl
    await writeFile(path.join(folder, 'conf', 'lmConf-1.json'), lmConf);
    const nginxConf = fill(await readFile(path.join(TEMPLATES, 'nginx.conf'), 'utf8'), { FOLDER: folder, PORT: String(port), FCGI_PORT: String(fcgiPort), USER: asRoot ? SERVICE_USER : userInfo().username });
    await writeFile(path.join(folder, 'nginx.conf'), nginxConf);
    // The portal (as www-data) writes sessions and reads the configuration in here.
    await chmod(folder, 0o755);
    if (asRoot) await chownTree(folder, uid, gid);

    const env = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      LANG: 'C.UTF-8',
      LLNG_DEFAULTCONFFILE: path.join(folder, 'lemonldap-ng.ini'),
      LLNG_DEFAULTLOGGER: 'Lemonldap::NG::Common::Logger::Std',
    };
    const run = (name: string, command: string, args: string[]) => {
      const child = spawn(command, args, { cwd: folder, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
      // The first lines (why it did not start) and the last ones (what it did just now).
      const output: string[] = [];
      const keep = (chunk: Buffer) => {
        for (const line of chunk.toString().split('\n')) if (line.trim()) output.push(line);
        if (output.length > 600) output.splice(100, output.length - 600);
      };
      child.stdout!.on('data', keep);
      child.stderr!.on('data', keep);
      children.push({ name, child, output });
    };
    run('llng-fastcgi-server', '/usr/sbin/llng-fastcgi-server', [
      '--foreground', '--listen', `127.0.0.1:${fcgiPort}`, '--proc', '3',
      '--pid', path.join(folder, 'llng-fastcgi.pid'), '--socket', path.join(folder, 'llng-fastcgi.sock'),
      ...(asRoot ? ['--user', SERVICE_USER, '--group', SERVICE_USER] : []),
    ]);
    run('nginx', '/usr/sbin/nginx', ['-c', path.join(folder, 'nginx.conf'), '-p', folder]);
    await waitFor('the LemonLDAP::NG portal to answer its discovery', 30_000, async () => {
      for (const { name, child, output } of children) {
        if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}`);
        if (output.some((line) => line.includes('Initialization failed'))) throw new Error(`the portal did not start (${name})`);
      }
      const response = await fetch(`${issuer}/.well-known/openid-configuration`).catch(() => null);
      return response?.status === 200;
    });
    options.log(`LemonLDAP::NG portal at ${issuer} (nginx; FastCGI on 127.0.0.1:${fcgiPort}) in ${folder}`);
  } catch (error) {
    const output = children.map((c) => `--- ${c.name}\n${c.output.join('\n')}`).join('\n');
    await stop();
    throw new Error(`${(error as Error).message}\n${output}`);
  }

  return { ...llngControl(folder, issuer), logs: () => children.map((c) => `--- ${c.name}\n${c.output.slice(-80).join('\n')}`).join('\n'), stop };
}

/** What a test does to a running instance, from its folder (the test worker did not start it). */
export function llngControl(folder: string, issuer: string): Omit<LlngStack, 'logs' | 'stop'> {
  const asRoot = userInfo().uid === 0;
  const uid = asRoot ? Number(execFileSync('id', ['-u', SERVICE_USER]).toString().trim()) : userInfo().uid;
  const gid = asRoot ? Number(execFileSync('id', ['-g', SERVICE_USER]).toString().trim()) : userInfo().gid;
  const confDir = path.join(folder, 'conf');
  const latest = async () => Math.max(...(await readdir(confDir)).map((name) => Number(/^lmConf-(\d+)\.json$/.exec(name)?.[1] ?? 0)));
  const config = async () => JSON.parse(await readFile(path.join(confDir, `lmConf-${await latest()}.json`), 'utf8')) as Record<string, unknown>;
  const cliEnv = { ...process.env, LLNG_DEFAULTCONFFILE: path.join(folder, 'lemonldap-ng.ini') };
  const cli = (command: string, args: string[]) =>
    execFileSync(path.join('/usr/share/lemonldap-ng/bin', command), args, { env: cliEnv, ...(asRoot ? { uid, gid } : {}) }).toString();
  return {
    issuer,
    folder,
    config,
    async updateConfig(change) {
      const next = await config();
      change(next);
      next.cfgNum = (await latest()) + 1;
      next.cfgDate = String(Math.floor(Date.now() / 1000));
      const file = path.join(confDir, `lmConf-${next.cfgNum as number}.json`);
      await writeFile(file, JSON.stringify(next, null, 2));
      if (asRoot) await chown(file, uid, gid);
      await waitForConfig();
    },
    async rotateKeys() {
      cli('rotateOidcKeys', []);
      await waitForConfig();
    },
    registerTotp(login, base32Secret) {
      execFileSync('perl', [path.join(TEMPLATES, 'register-totp.pl'), login, base32Secret], { env: cliEnv, ...(asRoot ? { uid, gid } : {}) });
    },
    cli,
  };
}

function newSigningKey(): { privateKey: string; publicKey: string; keyId: string } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    keyId: randomBytes(8).toString('hex'),
  };
}

/** The portal re-reads its configuration at most every checkTime (1 s, lemonldap-ng.ini); give it two. */
async function waitForConfig(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 2500));
}

async function chownTree(dir: string, uid: number, gid: number): Promise<void> {
  await chown(dir, uid, gid);
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) await chownTree(full, uid, gid);
    else await chown(full, uid, gid);
  }
}

export async function waitFor(what: string, ms: number, test: () => Promise<boolean>): Promise<void> {
  const until = Date.now() + ms;
  while (!(await test())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
