import { createHash, randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type Config } from '../config/index.ts';
import { DEV_OIDC_CLIENT } from '../security/devCredentials.ts';
import { DEV_USERS, PERMISSION_SCOPES } from '../devidp/users.ts';
import type { CliIo } from './command.ts';

// `npm run gateway -- dev token --user admin` (development only): an access token the running
// dev identity provider really issues. It signs in the way a browser does, over HTTP: the
// authorization request of the gateway's own dev client (PKCE), the provider's login page with
// the user's password, and the code redeemed at the token endpoint. The code is never sent to
// the gateway's callback: the command takes it from the redirect and redeems it itself.

export const DEV_HELP = `Usage: npm run gateway -- dev token --user USERNAME [--password PASSWORD] [--json]

Development only (refused when NODE_ENV=production or OIDC_ISSUER is set). Needs a running
\`npm start\`: signs in at its dev identity provider (DEV_IDP_PORT) as USERNAME with the
gateway's development client and prints the access token the provider issued, for
\`Authorization: Bearer …\` (15 minutes; admin holds platforms:admin and the onboarding schema
permissions). --password defaults to the seeded user's published password (alice, admin).

  curl -H "Authorization: Bearer $(npm run --silent gateway -- dev token --user admin)" \\
    http://localhost:8080/v1/platforms
`;

const OPTIONS = {
  user: { type: 'string' },
  password: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

class DevTokenError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode: number) {
    super(message);
    this.exitCode = exitCode;
  }
}

/** `dev …` commands; returns the exit code. */
export async function runDevCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const [action, ...rest] = argv;
  if (action === undefined || action === '--help' || action === '-h' || action === 'help') {
    io.stdout(DEV_HELP);
    return 0;
  }
  if (action !== 'token') {
    io.stderr(`gateway: unknown dev command "${action}" (token)\nRun \`npm run gateway -- dev --help\` for usage.\n`);
    return 2;
  }
  let values;
  try {
    ({ values } = parseArgs({ args: rest, options: OPTIONS, strict: true, allowPositionals: false }));
  } catch (error) {
    io.stderr(`gateway: ${(error as Error).message}\nRun \`npm run gateway -- dev --help\` for usage.\n`);
    return 2;
  }
  if (values.help) {
    io.stdout(DEV_HELP);
    return 0;
  }
  if (!values.user) {
    io.stderr('gateway: dev token needs --user USERNAME (for example --user admin)\n');
    return 2;
  }
  try {
    const config = devConfig(io.env);
    const password = values.password ?? DEV_USERS.find((user) => user.username === values.user)?.password;
    if (password === undefined) throw new DevTokenError(`${values.user} is not a seeded user: give --password`, 2);
    const token = await devAccessToken(config, values.user, password);
    if (values.json) {
      io.stdout(`${JSON.stringify(token, null, 2)}\n`);
    } else {
      io.stderr(`Access token of ${values.user}, issued by ${token.issuer} (scope: ${token.scope}; expires in ${token.expires_in} s):\n`);
      io.stdout(`${token.access_token}\n`);
    }
    return 0;
  } catch (error) {
    if (error instanceof DevTokenError) {
      io.stderr(`gateway: ${error.message}\n`);
      return error.exitCode;
    }
    io.stderr(`gateway: dev token failed: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

/** The service's configuration, refused (exit 78) wherever the dev identity provider does not run. */
function devConfig(env: CliIo['env']): Config {
  // Said before anything else is checked: a production environment fails many other checks too.
  if (env.NODE_ENV === 'production') {
    throw new DevTokenError('dev token is development only: the dev identity provider never runs when NODE_ENV=production. Get an access token from your identity provider.', 78);
  }
  let config: Config;
  try {
    config = loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) throw new DevTokenError(error.message, 78);
    throw error;
  }
  if (config.isProduction) {
    throw new DevTokenError('dev token is development only: the dev identity provider never runs when NODE_ENV=production. Get an access token from your identity provider.', 78);
  }
  if (config.oidc.issuer) {
    throw new DevTokenError(`dev token is development only: OIDC_ISSUER is set (${config.oidc.issuer}), so the gateway uses that provider, not the dev identity provider. Get an access token from it.`, 78);
  }
  return config;
}

interface DevToken {
  access_token: string;
  token_type: string;
  expires_in: number;
  scope: string;
  issuer: string;
}

/** A tiny cookie jar: the provider's interaction and session cookies, sent back to it. */
class Jar {
  private readonly cookies = new Map<string, string>();
  store(response: Response): void {
    for (const header of response.headers.getSetCookie()) {
      const [pair = ''] = header.split(';');
      const at = pair.indexOf('=');
      if (at <= 0) continue;
      const name = pair.slice(0, at).trim();
      const value = pair.slice(at + 1).trim();
      if (value === '' || /;\s*max-age=0/i.test(header) || /expires=Thu, 01 Jan 1970/i.test(header)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

async function devAccessToken(config: Config, username: string, password: string): Promise<DevToken> {
  const issuer = `http://127.0.0.1:${config.devIdpPort}`;
  const redirectUri = config.authCallbackUrl;
  const discovery = (await fetch(`${issuer}/.well-known/openid-configuration`).then(
    (response) => (response.ok ? response.json() : null),
    () => null,
  )) as { issuer?: string; authorization_endpoint?: string; token_endpoint?: string } | null;
  if (!discovery?.authorization_endpoint || !discovery.token_endpoint) {
    throw new DevTokenError(`the dev identity provider does not answer at ${issuer}: is \`npm start\` running (with the same DEV_IDP_PORT)?`, 1);
  }

  const verifier = randomBytes(32).toString('base64url');
  const state = randomBytes(16).toString('base64url');
  const authorize = new URL(discovery.authorization_endpoint);
  authorize.search = new URLSearchParams({
    client_id: DEV_OIDC_CLIENT.clientId,
    redirect_uri: redirectUri,
    response_type: 'code',
    // The permission scopes too: the provider grants each only to a user who holds it.
    scope: ['openid', 'profile', 'email', ...PERMISSION_SCOPES].join(' '),
    state,
    nonce: randomBytes(16).toString('base64url'),
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    prompt: 'login',
  }).toString();

  const jar = new Jar();
  const request = async (url: string, init: RequestInit = {}) => {
    const response = await fetch(url, { ...init, redirect: 'manual', headers: { ...(init.headers as Record<string, string>), cookie: jar.header() } });
    jar.store(response);
    return response;
  };
  /** Follows the provider's redirects until one leaves it for the redirect URI (the code) or a page is shown. */
  const follow = async (first: Response): Promise<{ code: URL } | { page: Response; url: string }> => {
    let response = first;
    let url = first.url;
    for (let hop = 0; hop < 10; hop += 1) {
      const location = response.headers.get('location');
      if (response.status < 300 || response.status >= 400 || !location) return { page: response, url };
      const next = new URL(location, url);
      if (next.href.startsWith(redirectUri)) return { code: next };
      url = next.href;
      response = await request(url);
    }
    throw new DevTokenError('the dev identity provider redirected too often', 1);
  };

  const atLogin = await follow(await request(authorize.href));
  if (!('page' in atLogin) || atLogin.page.status !== 200 || !/\/interaction\//.test(atLogin.url)) {
    throw new DevTokenError('the dev identity provider did not show its login page', 1);
  }
  await atLogin.page.text();
  const afterLogin = await follow(await request(atLogin.url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ username, password }).toString(),
  }));
  if (!('code' in afterLogin)) {
    const text = await afterLogin.page.text();
    const refused = /deactivated/i.test(text) ? 'this account has been deactivated' : 'invalid username or password';
    throw new DevTokenError(`the dev identity provider refused the sign-in of ${username}: ${refused}`, 1);
  }
  const callback = afterLogin.code;
  if (callback.searchParams.get('error')) {
    throw new DevTokenError(`the dev identity provider refused: ${callback.searchParams.get('error')} ${callback.searchParams.get('error_description') ?? ''}`.trim(), 1);
  }
  if (callback.searchParams.get('state') !== state) throw new DevTokenError('the authorization response carries another state', 1);
  const code = callback.searchParams.get('code');
  if (!code) throw new DevTokenError('the authorization response carries no code', 1);

  const tokenResponse = await fetch(discovery.token_endpoint, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${encodeURIComponent(DEV_OIDC_CLIENT.clientId)}:${encodeURIComponent(DEV_OIDC_CLIENT.clientSecret)}`).toString('base64')}`,
    },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: verifier }).toString(),
  });
  const body = (await tokenResponse.json()) as Partial<DevToken> & { error?: string; error_description?: string };
  if (!tokenResponse.ok || !body.access_token) {
    throw new DevTokenError(`the token endpoint refused: ${body.error ?? tokenResponse.status} ${body.error_description ?? ''}`.trim(), 1);
  }
  return { access_token: body.access_token, token_type: body.token_type ?? 'Bearer', expires_in: body.expires_in ?? 0, scope: body.scope ?? '', issuer: discovery.issuer ?? issuer };
}
