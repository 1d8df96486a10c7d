// A tiny browser-like HTTP client for tests: a cookie jar, manual redirects, and enough HTML
// form handling to sign in at the dev IdP. Plus obtainTokens(), which runs a complete
// authorization-code + PKCE flow (RFC 6749 §4.1, RFC 7636) against the dev IdP and returns
// real tokens, e.g. Bearer access tokens for admin API tests.
//
// Cookie handling follows RFC 6265 loosely: cookies are kept per host:port (stricter than a
// browser, which ignores the port, RFC 6265 §8.5; that keeps the gateway's and the IdP's
// cookies apart when both run on 127.0.0.1), Path is honoured (§5.1.4), Max-Age/Expires
// delete or expire cookies, Domain is ignored (host-only cookies).

import { createHash, randomBytes } from 'node:crypto';

export interface BrowserResponse {
  /** the URL that was requested */
  url: string;
  status: number;
  headers: Headers;
  /** Location resolved against `url`, when present */
  location: string | undefined;
  /** body, already read (so sockets are released) */
  text: string;
}

export interface FollowResult {
  /** the last response received (when stopped, the redirect whose target matched stopWhen) */
  response: BrowserResponse;
  /** every URL requested, in order, starting with the first response's URL */
  visited: string[];
  /** the redirect target that matched stopWhen (not requested), if any */
  stoppedAt: string | undefined;
}

interface StoredCookie {
  name: string;
  value: string;
  path: string;
  expiresAt: number | undefined;
  secure: boolean;
}

function jarKey(url: URL): string {
  return url.host; // host:port (port omitted by URL when default)
}

function defaultPath(url: URL): string {
  // RFC 6265 §5.1.4 default-path: the directory of the request path.
  const p = url.pathname;
  if (!p.startsWith('/') || p.lastIndexOf('/') === 0) return '/';
  return p.slice(0, p.lastIndexOf('/'));
}

function pathMatches(requestPath: string, cookiePath: string): boolean {
  // RFC 6265 §5.1.4 path-match.
  if (requestPath === cookiePath) return true;
  if (!requestPath.startsWith(cookiePath)) return false;
  return cookiePath.endsWith('/') || requestPath.charAt(cookiePath.length) === '/';
}

function isPotentiallyTrustworthy(url: URL): boolean {
  return url.protocol === 'https:' || ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
}

const HTML_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", '#39': "'" };

function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, ent: string) => {
    const lower = ent.toLowerCase();
    if (lower.startsWith('#x')) return String.fromCodePoint(parseInt(lower.slice(2), 16));
    if (lower.startsWith('#')) return String.fromCodePoint(parseInt(lower.slice(1), 10));
    return HTML_ENTITIES[lower] ?? m;
  });
}

function attr(tag: string, name: string): string | undefined {
  const re = new RegExp(`\\s${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, 'i');
  const m = re.exec(tag);
  if (!m) return undefined;
  return decodeEntities(m[1] ?? m[2] ?? m[3] ?? '');
}

export class OidcBrowser {
  readonly #jar = new Map<string, Map<string, StoredCookie>>();

  /** Cookies that would be sent to `url` (for assertions). */
  cookiesFor(url: string): Record<string, string> {
    const u = new URL(url);
    const out: Record<string, string> = {};
    for (const c of this.#matching(u)) out[c.name] = c.value;
    return out;
  }

  #matching(url: URL): StoredCookie[] {
    const jar = this.#jar.get(jarKey(url));
    if (!jar) return [];
    const now = Date.now();
    const found: StoredCookie[] = [];
    for (const [key, c] of jar) {
      if (c.expiresAt !== undefined && c.expiresAt <= now) {
        jar.delete(key);
        continue;
      }
      if (c.secure && !isPotentiallyTrustworthy(url)) continue;
      if (pathMatches(url.pathname, c.path)) found.push(c);
    }
    // RFC 6265 §5.4: longer paths first.
    return found.sort((a, b) => b.path.length - a.path.length);
  }

  #store(url: URL, headers: Headers): void {
    for (const line of headers.getSetCookie()) {
      const [pair = '', ...attrs] = line.split(';');
      const eq = pair.indexOf('=');
      if (eq <= 0) continue;
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      let path = defaultPath(url);
      let expiresAt: number | undefined;
      let secure = false;
      let maxAgeSeen = false;
      for (const a of attrs) {
        const i = a.indexOf('=');
        const key = (i === -1 ? a : a.slice(0, i)).trim().toLowerCase();
        const val = i === -1 ? '' : a.slice(i + 1).trim();
        if (key === 'path' && val.startsWith('/')) path = val;
        else if (key === 'secure') secure = true;
        else if (key === 'max-age' && /^-?\d+$/.test(val)) {
          maxAgeSeen = true; // Max-Age wins over Expires (§5.3 step 3)
          expiresAt = Date.now() + Number(val) * 1000;
        } else if (key === 'expires' && !maxAgeSeen) {
          const t = Date.parse(val);
          if (!Number.isNaN(t)) expiresAt = t;
        }
      }
      let jar = this.#jar.get(jarKey(url));
      if (!jar) {
        jar = new Map();
        this.#jar.set(jarKey(url), jar);
      }
      const key = `${name};${path}`;
      if (expiresAt !== undefined && expiresAt <= Date.now()) jar.delete(key);
      else jar.set(key, { name, value, path, expiresAt, secure });
    }
  }

  async #request(url: string, init: RequestInit): Promise<BrowserResponse> {
    const u = new URL(url);
    const headers = new Headers(init.headers);
    const cookies = this.#matching(u);
    if (cookies.length) headers.set('cookie', cookies.map((c) => `${c.name}=${c.value}`).join('; '));
    const res = await fetch(u, { ...init, headers, redirect: 'manual' });
    this.#store(u, res.headers);
    const text = await res.text();
    const loc = res.headers.get('location');
    return {
      url: u.href,
      status: res.status,
      headers: res.headers,
      location: loc ? new URL(loc, u).href : undefined,
      text,
    };
  }

  get(url: string, headers?: Record<string, string>): Promise<BrowserResponse> {
    return this.#request(url, { method: 'GET', headers: { accept: 'text/html,application/json;q=0.9,*/*;q=0.8', ...headers } });
  }

  postForm(url: string, fields: Record<string, string>, headers?: Record<string, string>): Promise<BrowserResponse> {
    return this.#request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(fields).toString(),
    });
  }

  /**
   * Follow 3xx redirects with GET (as browsers do for 301/302/303; 307/308 are also replayed
   * as GET here, which is enough for the flows under test). Stops before requesting a URL for
   * which stopWhen returns true, e.g. a redirect_uri that is not actually served.
   */
  async followRedirects(
    response: BrowserResponse,
    opts: { stopWhen?: (url: string) => boolean; maxHops?: number } = {},
  ): Promise<FollowResult> {
    const maxHops = opts.maxHops ?? 20;
    const visited = [response.url];
    let current = response;
    for (let hop = 0; ; hop++) {
      if (current.status < 300 || current.status >= 400 || !current.location) {
        return { response: current, visited, stoppedAt: undefined };
      }
      const next = current.location;
      if (opts.stopWhen?.(next)) {
        return { response: current, visited, stoppedAt: next };
      }
      if (hop >= maxHops) throw new Error(`too many redirects (>${maxHops}): ${visited.join(' -> ')}`);
      visited.push(next);
      current = await this.get(next);
    }
  }

  /**
   * Fill in and submit the dev IdP's login form found in `loginPage`: username/password plus
   * any hidden inputs (and `extra` fields, e.g. the one-time code `otp`), posted to the form's
   * action resolved against the page URL.
   */
  /** The dev provider's own sign-out page: confirm "Yes, sign me out" (logout=yes: every client of the provider session). */
  async confirmProviderSignOut(page: { text: string; url: string }): Promise<BrowserResponse> {
    const form = /<form[^>]*id="op.logoutForm"[^>]*>([\s\S]*?)<\/form>/i.exec(page.text);
    if (!form) throw new Error(`not the provider's sign-out page: ${page.text.slice(0, 400)}`);
    const action = new URL(/action="([^"]+)"/.exec(form[0])![1]!, page.url).href;
    const fields: Record<string, string> = { logout: 'yes' };
    for (const input of form[1]!.match(/<input\b[^>]*>/gi) ?? []) {
      const name = /name="([^"]+)"/.exec(input)?.[1];
      if (name) fields[name] = /value="([^"]*)"/.exec(input)?.[1] ?? '';
    }
    return this.postForm(action, fields);
  }

  async loginAtDevIdp(loginPage: BrowserResponse, username: string, password: string, extra: Record<string, string> = {}): Promise<BrowserResponse> {
    const formMatch = /<form\b[^>]*>([\s\S]*?)<\/form>/i.exec(loginPage.text);
    if (!formMatch) {
      throw new Error(`no form in page ${loginPage.url} (status ${loginPage.status}): ${loginPage.text.slice(0, 300)}`);
    }
    const formTag = /<form\b[^>]*>/i.exec(formMatch[0])?.[0] ?? '';
    const method = (attr(formTag, 'method') ?? 'get').toLowerCase();
    if (method !== 'post') throw new Error(`login form method is ${method}, expected post`);
    const action = new URL(attr(formTag, 'action') || loginPage.url, loginPage.url).href;

    const fields: Record<string, string> = {};
    for (const input of formMatch[1]?.match(/<input\b[^>]*>/gi) ?? []) {
      const type = (attr(input, 'type') ?? 'text').toLowerCase();
      const name = attr(input, 'name');
      if (name && type === 'hidden') fields[name] = attr(input, 'value') ?? '';
    }
    fields.username = username;
    fields.password = password;
    return this.postForm(action, { ...fields, ...extra });
  }
}

export interface ObtainTokensInput {
  issuer: string;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  username: string;
  password: string;
  /** default "openid profile email" */
  scope?: string;
  /** sent as the OIDC nonce; random when omitted */
  nonce?: string;
  /** reuse a browser (and its IdP session); a fresh one by default */
  browser?: OidcBrowser;
}

export interface ObtainedTokens {
  accessToken: string;
  idToken: string;
  /** the `scope` of the token response (RFC 6749 §5.1) */
  scope: string;
  refreshToken: string | undefined;
  expiresIn: number | undefined;
  /** the nonce that was sent */
  nonce: string;
}

interface DiscoveryDocument {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
}

function b64url(buf: Buffer): string {
  return buf.toString('base64url');
}

/** RFC 6749 §2.3.1: client_id and secret are form-urlencoded before Basic encoding. */
export function basicAuth(clientId: string, clientSecret: string): string {
  const enc = (s: string) => encodeURIComponent(s).replace(/%20/g, '+');
  return `Basic ${Buffer.from(`${enc(clientId)}:${enc(clientSecret)}`).toString('base64')}`;
}

export async function obtainTokens(input: ObtainTokensInput): Promise<ObtainedTokens> {
  const browser = input.browser ?? new OidcBrowser();
  const discoveryRes = await fetch(new URL('/.well-known/openid-configuration', `${input.issuer}/`));
  if (!discoveryRes.ok) throw new Error(`discovery failed: ${discoveryRes.status}`);
  const discovery = (await discoveryRes.json()) as DiscoveryDocument;

  const codeVerifier = b64url(randomBytes(32));
  const codeChallenge = b64url(createHash('sha256').update(codeVerifier).digest());
  const state = b64url(randomBytes(16));
  const nonce = input.nonce ?? b64url(randomBytes(16));

  const authorize = new URL(discovery.authorization_endpoint);
  authorize.search = new URLSearchParams({
    client_id: input.clientId,
    response_type: 'code',
    scope: input.scope ?? 'openid profile email',
    redirect_uri: input.redirectUri,
    state,
    nonce,
    code_challenge: codeChallenge,
    code_challenge_method: 'S256',
  }).toString();

  const atRedirectUri = (url: string) => url.startsWith(input.redirectUri);
  let result = await browser.followRedirects(await browser.get(authorize.href), { stopWhen: atRedirectUri });
  if (!result.stoppedAt) {
    // Not signed in yet: we are on the login page.
    if (result.response.status !== 200) {
      throw new Error(`expected the login page, got ${result.response.status} at ${result.response.url}: ${result.response.text.slice(0, 300)}`);
    }
    const afterLogin = await browser.loginAtDevIdp(result.response, input.username, input.password);
    result = await browser.followRedirects(afterLogin, { stopWhen: atRedirectUri });
    if (!result.stoppedAt) {
      throw new Error(`login did not complete (status ${result.response.status} at ${result.response.url}): ${result.response.text.slice(0, 300)}`);
    }
  }

  const callback = new URL(result.stoppedAt);
  const error = callback.searchParams.get('error');
  if (error) throw new Error(`authorization failed: ${error} ${callback.searchParams.get('error_description') ?? ''}`);
  if (callback.searchParams.get('state') !== state) throw new Error('state mismatch in authorization response');
  // RFC 9207: the authorization response names its issuer (mix-up defence).
  const iss = callback.searchParams.get('iss');
  if (iss !== null && iss !== discovery.issuer) throw new Error(`iss mismatch in authorization response: ${iss}`);
  const code = callback.searchParams.get('code');
  if (!code) throw new Error(`no code in authorization response: ${callback.href}`);

  const tokenRes = await fetch(discovery.token_endpoint, {
    method: 'POST',
    headers: {
      authorization: basicAuth(input.clientId, input.clientSecret),
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
    },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: input.redirectUri,
      code_verifier: codeVerifier,
    }).toString(),
  });
  const body = (await tokenRes.json()) as Record<string, unknown>;
  if (!tokenRes.ok) throw new Error(`token request failed: ${tokenRes.status} ${JSON.stringify(body)}`);
  if (typeof body.access_token !== 'string' || typeof body.id_token !== 'string') {
    throw new Error(`token response lacks access_token/id_token: ${JSON.stringify(body)}`);
  }
  return {
    accessToken: body.access_token,
    idToken: body.id_token,
    scope: typeof body.scope === 'string' ? body.scope : '',
    refreshToken: typeof body.refresh_token === 'string' ? body.refresh_token : undefined,
    expiresIn: typeof body.expires_in === 'number' ? body.expires_in : undefined,
    nonce,
  };
}
