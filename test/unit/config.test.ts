import { describe, it, expect } from 'vitest';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ConfigError, loadConfig, loadDatabaseToolConfig } from '../../src/config/index.ts';
import { DEV_ENCRYPTION_KEYS } from '../../src/security/crypto.ts';
import { generateSigningKeySpec } from '../../src/security/signingKeys.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The problems loadConfig reports for an environment (fails the test when it accepts it). */
function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    for (const problem of problems) expect((error as ConfigError).message).toContain(problem);
    return [...problems];
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe('loadConfig defaults', () => {
  const config = loadConfig({});

  it('uses the documented defaults', () => {
    expect(config.nodeEnv).toBe('development');
    expect(config.isProduction).toBe(false);
    expect(config.port).toBe(8080);
    expect(config.authHandoffTtlSeconds).toBe(60);
    expect(config.authTransactionTtlSeconds).toBe(600);
    expect(config.gatewayCookieName).toBe('gw_session');
    expect(config.oidc.scopes).toEqual(['openid', 'profile', 'email']);
    expect(config.oidc).toMatchObject({ issuer: null, clientId: null, clientSecret: null, accessTokenAudience: null });
    expect(config.databaseUrl).toBeNull();
    expect(config.encryptionKeys).toBeNull();
    expect(config.authPlatformKey).toBeNull();
    expect(config.logLevel).toBe('info');
  });

  it('derives the public base URL from the port and the callback URL from the public base URL', () => {
    expect(config.publicBaseUrl).toBe('http://localhost:8080');
    expect(config.authCallbackUrl).toBe('http://localhost:8080/v1/auth/callback');
    const custom = loadConfig({ PORT: '9000' });
    expect(custom.authCallbackUrl).toBe('http://localhost:9000/v1/auth/callback');
    const behindProxy = loadConfig({ PUBLIC_BASE_URL: 'https://gateway.example.com/' });
    expect(behindProxy.publicBaseUrl).toBe('https://gateway.example.com');
    expect(behindProxy.authCallbackUrl).toBe('https://gateway.example.com/v1/auth/callback');
  });

  it('an explicit AUTH_CALLBACK_URL wins over the derived one, on the gateway\'s own origin', () => {
    const explicit = loadConfig({ PUBLIC_BASE_URL: 'https://gateway.example.com', AUTH_CALLBACK_URL: 'https://gateway.example.com/login/cb' });
    expect(explicit.authCallbackUrl).toBe('https://gateway.example.com/login/cb');
    // The login binding cookie set by start must reach the callback.
    const elsewhere = problemsOf({ PUBLIC_BASE_URL: 'https://gateway.example.com', AUTH_CALLBACK_URL: 'https://login.example.com/cb' });
    expect(elsewhere).toEqual([expect.stringMatching(/AUTH_CALLBACK_URL must be on the gateway's own origin https:\/\/gateway\.example\.com/)]);
  });

  it('marks cookies Secure whenever the gateway is served over https, not only in production', () => {
    expect(loadConfig({}).secureCookies).toBe(false);
    expect(loadConfig({ PUBLIC_BASE_URL: 'https://gateway.example.com' }).secureCookies).toBe(true);
  });

  it('bounds the resume of a login: AUTH_RESUME_TTL_SECONDS, one hour by default, 60 s to one day', () => {
    expect(loadConfig({}).authResumeTtlSeconds).toBe(3600);
    expect(loadConfig({ AUTH_RESUME_TTL_SECONDS: '60' }).authResumeTtlSeconds).toBe(60);
    expect(loadConfig({ AUTH_RESUME_TTL_SECONDS: '86400' }).authResumeTtlSeconds).toBe(86400);
    expect(problemsOf({ AUTH_RESUME_TTL_SECONDS: '86401' })).toEqual([expect.stringMatching(/AUTH_RESUME_TTL_SECONDS=86401 is refused: allowed 60\.\.86400/)]);
  });

  it('reads the Bearer token rules: trusted clients as a list, the permissions source', () => {
    const config = loadConfig({ OIDC_TRUSTED_CLIENT_IDS: ' a@proj, b@proj ,a@proj', OIDC_PERMISSIONS_FROM: 'zitadel-roles', OIDC_ACCESS_TOKEN_AUDIENCE: '2594' });
    expect(config.oidc).toMatchObject({ trustedClientIds: ['a@proj', 'b@proj'], permissionsFrom: 'zitadel-roles', accessTokenAudience: '2594' });
    expect(loadConfig({}).oidc).toMatchObject({ trustedClientIds: null, permissionsFrom: 'scope', accessTokenAudience: null });
    expect(problemsOf({ OIDC_PERMISSIONS_FROM: 'roles' })).toEqual([expect.stringMatching(/OIDC_PERMISSIONS_FROM=roles is refused: allowed scope, zitadel-roles/)]);
  });

  it('reads the second-factor rules: amr values as a list (default mfa), one acr value (default the multi-factor policy)', () => {
    expect(loadConfig({}).oidc).toMatchObject({ secondFactorAmr: ['mfa'], secondFactorAcr: 'http://schemas.openid.net/pape/policies/2007/06/multi-factor' });
    expect(loadConfig({ OIDC_SECOND_FACTOR_AMR: 'mfa, hwk ,mfa', OIDC_SECOND_FACTOR_ACR: 'urn:example:mfa' }).oidc)
      .toMatchObject({ secondFactorAmr: ['mfa', 'hwk'], secondFactorAcr: 'urn:example:mfa' });
    expect(problemsOf({ OIDC_SECOND_FACTOR_AMR: ' , ' })).toEqual([expect.stringMatching(/OIDC_SECOND_FACTOR_AMR is refused/)]);
    expect(problemsOf({ OIDC_SECOND_FACTOR_ACR: 'two values' })).toEqual([expect.stringMatching(/OIDC_SECOND_FACTOR_ACR/)]);
  });

  it('CORS origins default to the account center origin, and must include it', () => {
    const accountOnly = loadConfig({ ACCOUNT_CENTER_URL: 'https://account.example.com/app/' });
    expect(accountOnly.corsOrigins).toEqual(['https://account.example.com']);
    const both = loadConfig({ ACCOUNT_CENTER_URL: 'https://account.example.com', CORS_ORIGINS: 'https://account.example.com, https://admin.example.com:8443' });
    expect(both.corsOrigins).toEqual(['https://account.example.com', 'https://admin.example.com:8443']);
    const problems = problemsOf({ ACCOUNT_CENTER_URL: 'https://account.example.com', CORS_ORIGINS: 'https://admin.example.com' });
    expect(problems.join('\n')).toMatch(/CORS_ORIGINS.*account\.example\.com/);
  });

  it('accepts the edges of the handoff TTL range', () => {
    expect(loadConfig({ AUTH_HANDOFF_TTL_SECONDS: '30' }).authHandoffTtlSeconds).toBe(30);
    expect(loadConfig({ AUTH_HANDOFF_TTL_SECONDS: '300' }).authHandoffTtlSeconds).toBe(300);
  });

  it('the test environment logs nothing by default', () => {
    expect(loadConfig({ NODE_ENV: 'test' }).logLevel).toBe('silent');
  });
});

describe('loadConfig refuses bad values, naming the variable and the rule', () => {
  const cases: Array<[env: Record<string, string>, variable: string, rule: RegExp]> = [
    [{ AUTH_HANDOFF_TTL_SECONDS: '10' }, 'AUTH_HANDOFF_TTL_SECONDS', /30\.\.300/],
    [{ AUTH_HANDOFF_TTL_SECONDS: '301' }, 'AUTH_HANDOFF_TTL_SECONDS', /30\.\.300/],
    [{ AUTH_HANDOFF_TTL_SECONDS: 'abc' }, 'AUTH_HANDOFF_TTL_SECONDS', /30\.\.300/],
    [{ AUTH_HANDOFF_TTL_SECONDS: '60.5' }, 'AUTH_HANDOFF_TTL_SECONDS', /30\.\.300/],
    [{ AUTH_TRANSACTION_TTL_SECONDS: '5' }, 'AUTH_TRANSACTION_TTL_SECONDS', /\d+\.\.\d+/],
    [{ PORT: '70000' }, 'PORT', /0\.\.65535/],
    [{ NODE_ENV: 'staging' }, 'NODE_ENV', /development, test, production/],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL', /info/],
    [{ ACCOUNT_CENTER_URL: 'ftp://x' }, 'ACCOUNT_CENTER_URL', /http or https/],
    [{ ACCOUNT_CENTER_URL: 'not a url' }, 'ACCOUNT_CENTER_URL', /http or https/],
    [{ PUBLIC_BASE_URL: 'https://user:pw@gateway.example.com' }, 'PUBLIC_BASE_URL', /userinfo/],
    [{ AUTH_CALLBACK_URL: 'https://gateway.example.com/cb#x' }, 'AUTH_CALLBACK_URL', /fragment/],
    [{ CORS_ORIGINS: 'http://localhost:3000,https://app.example.com/dashboard' }, 'CORS_ORIGINS', /origin.*no path/],
    [{ AUTH_PLATFORM_KEY: 'lower' }, 'AUTH_PLATFORM_KEY', /\^\[A-Z\]/],
    [{ GATEWAY_COOKIE_NAME: 'gw session' }, 'GATEWAY_COOKIE_NAME', /cookie name/],
    [{ GATEWAY_COOKIE_NAME: 'gw;session' }, 'GATEWAY_COOKIE_NAME', /cookie name/],
    [{ OIDC_SCOPES: 'profile email' }, 'OIDC_SCOPES', /openid/],
    [{ OIDC_ISSUER: 'https://idp.example.com', ENCRYPTION_KEYS: 'k1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }, 'OIDC_CLIENT_ID', /OIDC_ISSUER/],
  ];

  it.each(cases)('%j is refused', (env, variable, rule) => {
    const problems = problemsOf(env);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(variable);
    expect(problems[0]).toMatch(rule);
  });

  it('reports several problems together', () => {
    const problems = problemsOf({ AUTH_HANDOFF_TTL_SECONDS: '10', PORT: '70000', LOG_LEVEL: 'loud', OIDC_SCOPES: 'profile' });
    expect(problems).toHaveLength(4);
    const text = problems.join('\n');
    for (const variable of ['AUTH_HANDOFF_TTL_SECONDS', 'PORT', 'LOG_LEVEL', 'OIDC_SCOPES']) expect(text).toContain(variable);
  });
});

describe('production', () => {
  const complete = {
    NODE_ENV: 'production',
    DATABASE_URL: 'postgres://gateway@db.internal/gateway',
    ENCRYPTION_KEYS: 'k1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    PUBLIC_BASE_URL: 'https://gateway.example.com',
    ACCOUNT_CENTER_URL: 'https://account.example.com',
    GATEWAY_SIGNING_KEYS: generateSigningKeySpec('s1'),
  };

  it('requires DATABASE_URL, ENCRYPTION_KEYS and an https PUBLIC_BASE_URL', () => {
    const problems = problemsOf({ NODE_ENV: 'production' }).join('\n');
    expect(problems).toContain('DATABASE_URL');
    expect(problems).toContain('ENCRYPTION_KEYS');
    expect(problems).toMatch(/PUBLIC_BASE_URL.*https/);
  });

  it.each(['DATABASE_URL', 'ENCRYPTION_KEYS', 'PUBLIC_BASE_URL', 'GATEWAY_SIGNING_KEYS'] as const)('refuses a production environment without %s', (variable) => {
    const env: Record<string, string> = { ...complete };
    delete env[variable];
    const problems = problemsOf(env);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(variable);
  });

  it('refuses an http PUBLIC_BASE_URL in production', () => {
    const problems = problemsOf({ ...complete, PUBLIC_BASE_URL: 'http://gateway.example.com' });
    expect(problems).toEqual([expect.stringMatching(/PUBLIC_BASE_URL.*https/)]);
  });

  it.each([
    ['ACCOUNT_CENTER_URL', 'http://account.example.com'],
    ['OIDC_ISSUER', 'http://idp.example.com'],
  ])('refuses an http %s in production', (variable, value) => {
    const problems = problemsOf({ ...complete, [variable]: value });
    expect(problems).toEqual([expect.stringMatching(new RegExp(`${variable} must be https`))]);
  });

  it('refuses an http origin in CORS_ORIGINS in production, naming it', () => {
    const problems = problemsOf({ ...complete, CORS_ORIGINS: 'https://account.example.com,http://admin.example.com' });
    expect(problems).toEqual([expect.stringMatching(/CORS_ORIGINS must list only https origins.*http:\/\/admin\.example\.com/)]);
    expect(loadConfig({ ...complete, CORS_ORIGINS: 'https://account.example.com,https://admin.example.com' }).corsOrigins).toHaveLength(2);
  });

  it('refuses the published development key ring in production', () => {
    expect(problemsOf({ ...complete, ENCRYPTION_KEYS: DEV_ENCRYPTION_KEYS })).toEqual([expect.stringMatching(/ENCRYPTION_KEYS is refused: the published development key ring/)]);
  });

  it('refuses the published development key by its bytes: under another id, in standard base64, or as an older key', () => {
    const devKey = DEV_ENCRYPTION_KEYS.slice(DEV_ENCRYPTION_KEYS.indexOf(':') + 1);
    const standardBase64 = Buffer.from(devKey, 'base64url').toString('base64');
    for (const ring of [`k9:${devKey}`, `dev:${standardBase64}`, `k2:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA,old:${devKey}`]) {
      expect(problemsOf({ ...complete, ENCRYPTION_KEYS: ring })).toEqual([expect.stringMatching(/ENCRYPTION_KEYS is refused: the published development key ring/)]);
      expect(problemsOf({ DATABASE_URL: 'postgres://db.internal/gateway', ENCRYPTION_KEYS: ring })).toEqual([expect.stringMatching(/ENCRYPTION_KEYS is refused/)]);
    }
  });

  it('prefixes the session cookie with __Host- in production (unless it already is)', () => {
    expect(loadConfig(complete).gatewayCookieName).toBe('__Host-gw_session');
    expect(loadConfig({ ...complete, GATEWAY_COOKIE_NAME: 'acme_sid' }).gatewayCookieName).toBe('__Host-acme_sid');
    expect(loadConfig({ ...complete, GATEWAY_COOKIE_NAME: '__Host-acme_sid' }).gatewayCookieName).toBe('__Host-acme_sid');
    expect(loadConfig({ ...complete, GATEWAY_COOKIE_NAME: '__Secure-acme_sid' }).gatewayCookieName).toBe('__Host-acme_sid');
    // Outside production the name is used as configured; __Host- there needs https.
    expect(loadConfig({}).gatewayCookieName).toBe('gw_session');
    expect(problemsOf({ GATEWAY_COOKIE_NAME: '__Host-sid' })).toEqual([expect.stringMatching(/GATEWAY_COOKIE_NAME with the __Host- prefix needs Secure cookies/)]);
    expect(loadConfig({ GATEWAY_COOKIE_NAME: '__Host-sid', PUBLIC_BASE_URL: 'https://gateway.example.com' }).gatewayCookieName).toBe('__Host-sid');
  });

  it('accepts a complete production environment', () => {
    const config = loadConfig(complete);
    expect(config.isProduction).toBe(true);
    expect(config.authCallbackUrl).toBe('https://gateway.example.com/v1/auth/callback');
  });

  it('keeps accepting 5 s after SIGTERM by default (a grace of 0 reset requests on idle keep-alive connections); development stops at once', () => {
    expect(loadConfig(complete).shutdownGraceSeconds).toBe(5);
    expect(loadConfig({ ...complete, SHUTDOWN_GRACE_SECONDS: '0' }).shutdownGraceSeconds).toBe(0);
    expect(loadConfig({}).shutdownGraceSeconds).toBe(0);
  });
});

describe('the published development key ring', () => {
  it('is used only by the embedded dev stack (no OIDC_ISSUER, no DATABASE_URL)', () => {
    expect(loadConfig({}).encryptionKeys).toBeNull();
    expect(loadConfig({ ENCRYPTION_KEYS: DEV_ENCRYPTION_KEYS }).encryptionKeys).toBe(DEV_ENCRYPTION_KEYS);
  });

  it.each([
    [{ DATABASE_URL: 'postgres://db.internal/gateway' }],
    [{ OIDC_ISSUER: 'https://idp.example.com', OIDC_CLIENT_ID: 'c', OIDC_CLIENT_SECRET: 's' }],
  ])('is refused with %j: ENCRYPTION_KEYS is then required, and never the published ring', (env) => {
    expect(problemsOf(env)).toEqual([expect.stringMatching(/ENCRYPTION_KEYS is required when OIDC_ISSUER or DATABASE_URL is set/)]);
    expect(problemsOf({ ...env, ENCRYPTION_KEYS: DEV_ENCRYPTION_KEYS })).toEqual([expect.stringMatching(/ENCRYPTION_KEYS is refused/)]);
    expect(loadConfig({ ...env, ENCRYPTION_KEYS: 'k1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }).encryptionKeys).toMatch(/^k1:/);
  });
});

describe('HOST, the listen address', () => {
  it('is loopback in the dev stack (published demo users and credentials), every interface otherwise', () => {
    expect(loadConfig({}).listenHost).toBe('127.0.0.1');
    expect(loadConfig({ DATABASE_URL: 'postgres://db.internal/gateway', ENCRYPTION_KEYS: 'k1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }).listenHost).toBe('127.0.0.1');
    expect(loadConfig({ OIDC_ISSUER: 'https://idp.example.com', OIDC_CLIENT_ID: 'c', OIDC_CLIENT_SECRET: 's', ENCRYPTION_KEYS: 'k1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }).listenHost).toBeNull();
    expect(loadConfig({ HOST: '0.0.0.0' }).listenHost).toBe('0.0.0.0');
    expect(loadConfig({ HOST: '::' }).listenHost).toBe('::');
    expect(problemsOf({ HOST: 'not a host!' })).toEqual([expect.stringMatching(/^HOST=not a host! is refused/)]);
  });
});

describe('the database tools (migrations, operator CLI)', () => {
  it('need only DATABASE_URL: no key ring, no public URLs, even in production', () => {
    const config = loadDatabaseToolConfig({ NODE_ENV: 'production', DATABASE_URL: 'postgres://db.internal/gateway' });
    expect(config).toEqual({
      nodeEnv: 'production',
      isProduction: true,
      databaseUrl: 'postgres://db.internal/gateway',
      logLevel: 'info',
      outbound: { allowedPrivateRanges: [], allowLoopback: false },
    });
    expect(() => loadDatabaseToolConfig({ NODE_ENV: 'production' })).toThrow(/DATABASE_URL is required/);
  });
});

describe('the returned config', () => {
  it('is deeply frozen', () => {
    const config = loadConfig({ CORS_ORIGINS: 'http://localhost:3000,https://admin.example.com' });
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.oidc)).toBe(true);
    expect(Object.isFrozen(config.oidc.scopes)).toBe(true);
    expect(Object.isFrozen(config.corsOrigins)).toBe(true);
    expect(() => {
      (config as { port: number }).port = 1;
    }).toThrow(TypeError);
    expect(() => {
      (config.corsOrigins as string[]).push('https://evil.example');
    }).toThrow(TypeError);
    expect(() => {
      (config.oidc as { issuer: string | null }).issuer = 'https://evil.example';
    }).toThrow(TypeError);
    expect(config.port).toBe(8080);
    expect(config.corsOrigins).toEqual(['http://localhost:3000', 'https://admin.example.com']);
  });
});

describe('DATABASE_URL: one address, as the driver (pg) reads it', () => {
  const base = { DATABASE_URL: '', ENCRYPTION_KEYS: 'k1:' + 'A'.repeat(43) };
  const withUrl = (url: string) => ({ ...base, DATABASE_URL: url });

  it.each([
    ['several hosts with ports', 'postgres://gw:secret@db1:5432,db2:5432/gateway'],
    ['several hosts without ports', 'postgres://gw:secret@db1,db2/gateway'],
    ['several hosts in the host parameter', 'postgresql://gw:secret@db1/gateway?host=db1,db2'],
  ])('refuses %s, naming the variable and what to use instead, never echoing the password', (_name, url) => {
    const problems = problemsOf(withUrl(url));
    expect(problems).toEqual([expect.stringMatching(/^DATABASE_URL is refused: .*several hosts.*HAProxy.*Patroni/)]);
    expect(problems.join(' ')).not.toContain('secret');
  });

  it.each(['read-write', 'primary', 'prefer-standby'])('refuses target_session_attrs=%s, which pg would silently ignore', (attrs) => {
    const problems = problemsOf(withUrl(`postgres://gw@db1:5432/gateway?target_session_attrs=${attrs}`));
    expect(problems).toEqual([expect.stringMatching(/^DATABASE_URL is refused: target_session_attrs .*ignore.*HAProxy/)]);
  });

  it('refuses what is not a URL', () => {
    expect(problemsOf(withUrl('host=db1 dbname=gateway'))).toEqual([expect.stringMatching(/^DATABASE_URL is refused: must be postgres:\/\//)]);
  });

  it.each([
    'postgres://gw:secret@db.internal/gateway',
    'postgres://gw:secret@haproxy.internal:5000/gateway?target_session_attrs=any',
    'postgresql://gw@[::1]:5432/gateway?sslmode=verify-full',
    'postgresql:///gateway?host=/var/run/postgresql',
    'postgres://gw:pa,ss@db.internal/gateway', // a comma in the password is not a second host
  ])('accepts one host, with or without a port (pg defaults to 5432): %s', (url) => {
    expect(loadConfig(withUrl(url)).databaseUrl).toBe(url);
    expect(loadDatabaseToolConfig({ DATABASE_URL: url }).databaseUrl).toBe(url);
  });

  it('the migration tool and the CLI refuse the same URLs', () => {
    expect(() => loadDatabaseToolConfig({ DATABASE_URL: 'postgres://gw@db1:5432,db2:5432/gateway' })).toThrow(/DATABASE_URL is refused: .*several hosts/);
  });
});

describe('the service entry point', () => {
  it('exits non-zero before touching the database when a variable is bad, naming it', async () => {
    const child = spawn(process.execPath, ['src/main.ts'], {
      cwd: ROOT,
      // Nothing from the developer's environment: no DATABASE_URL, no issuer.
      env: { PATH: process.env.PATH ?? '', AUTH_HANDOFF_TTL_SECONDS: '10' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // A guard against a hang (it would be starting PostgreSQL), not a timing assertion.
    const guard = setTimeout(() => child.kill('SIGKILL'), 25_000);
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.on('close', (c, s) => resolve([c, s])));
    clearTimeout(guard);
    expect({ signal, stderr }).toEqual({ signal: null, stderr: expect.stringContaining('AUTH_HANDOFF_TTL_SECONDS') });
    expect(code).not.toBe(0);
    expect(code).toBe(78); // EX_CONFIG
    expect(stderr).toContain('30..300');
    // It stopped before creating the logger, the database or the identity provider.
    expect(stdout).toBe('');
    expect(stderr).not.toMatch(/postgres|listening/i);
  }, 30_000);

  // Before: `TypeError: Invalid URL` and exit 1 (ports), or a wait that never ended (no ports).
  it.each(['postgres://gw:pw@127.0.0.1:5432,127.0.0.2:5432/gateway', 'postgres://gw:pw@127.0.0.1,127.0.0.2/gateway'])('refuses a multi-host DATABASE_URL with exit 78, naming it: %s', async (url) => {
    const { code, stdout, stderr } = await runMain({ DATABASE_URL: url, ENCRYPTION_KEYS: 'k1:' + 'A'.repeat(43), OIDC_ISSUER: 'https://idp.example.test', OIDC_CLIENT_ID: 'c', OIDC_CLIENT_SECRET: 's' });
    expect({ code, stderr }).toEqual({ code: 78, stderr: expect.stringContaining('DATABASE_URL is refused') });
    expect(stderr).toContain('HAProxy');
    expect(stderr).not.toContain('Invalid URL');
    expect(stdout).toBe('');
  }, 30_000);
});

/** `node src/main.ts` with only these variables; a guard kills it after 25 s (a hang fails the test). */
async function runMain(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['src/main.ts'], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const guard = setTimeout(() => child.kill('SIGKILL'), 25_000);
  const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  clearTimeout(guard);
  return { code, stdout, stderr };
}
