// For the profile page's component tests only: a fake gateway behind the real typed client
// (createApi with a fetch of our own) and the page rendered as App renders it.
import { configure, render } from '@testing-library/react';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router';
import { createApi, type Schemas } from '../../api.ts';
import type { AccountCenterConfig } from '../../config.ts';
import { RequireSession } from '../../layout/guards.tsx';
import { SessionProvider } from '../../session.tsx';
import { LanguageProvider } from '../../i18n/LanguageProvider.tsx';
import type { UploadFetch } from './AvatarSection.tsx';
import { ProfilePage } from './ProfilePage.tsx';

// The page holds the country list (about 250 options): role queries are slow in jsdom, more so
// on a busy machine. Wait long enough for a loaded machine; a passing test does not wait.
configure({ asyncUtilTimeout: 10_000 });

/** Per-test time limit of these files (vitest's default of 5 s is too tight under load). */
export const SLOW = { timeout: 30_000 };

export const CONFIG: AccountCenterConfig = { authBackendUrl: 'http://gateway.test/v1', authPlatformKey: 'ACCOUNT_CENTER' };

export interface Call {
  method: string;
  /** Path and query, e.g. /v1/profile/me */
  path: string;
  body: unknown;
  credentials?: RequestCredentials;
  headers: Record<string, string>;
}

export type Answer = Response | ((call: Call) => Response | Promise<Response>);

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'Content-Type': status >= 400 ? 'application/problem+json' : 'application/json', ...headers },
  });
}

export const noContent = () => new Response(null, { status: 204 });

export function problem(status: number, code: string, detail: string, errors?: { pointer: string; message: string; reason?: string }[], headers: Record<string, string> = {}): Response {
  return json(status, { type: `https://docs.example/problems/${code}`, title: code, status, code, detail, requestId: 'req-1', ...(errors ? { errors } : {}) }, headers);
}

export const PROFILE: Schemas['Profile'] = {
  userId: '0b0e4f60-1c3d-4a5b-9e7f-0a1b2c3d4e5f',
  firstName: 'Alice',
  lastName: 'Liddell',
  displayName: 'Alice L.',
  dateOfBirth: null,
  phone: null,
  country: 'GB',
  locale: null,
  email: 'alice@example.com',
  pictureUrl: null,
  updatedAt: '2025-06-01T10:00:00Z',
};

export function me(memberships: Schemas['Me']['memberships'] = []): Schemas['Me'] {
  return {
    user: { id: PROFILE.userId, sub: 'dev-user-alice', email: PROFILE.email, displayName: PROFILE.displayName, pictureUrl: null, locale: null },
    permissions: [],
    permissionsReadAt: '2025-06-01T10:00:00Z',
    authentication: 'session',
    platform: null,
    session: { id: '3f6c1a52-9d4e-4b7a-8c21-5e0f7a9b2d13', expiresAt: '2025-06-01T18:00:00Z' },
    memberships,
  };
}

/**
 * A gateway answering by "METHOD /path" (query left out); each route answers from a list
 * (the last answer repeats) or a function. Unknown routes are 404s, so a forgotten route shows.
 * Every request is recorded, the uploads' too (they go through `upload`, not the client).
 */
export function fakeGateway(routes: Record<string, Answer | Answer[]> = {}) {
  const table: Record<string, Answer | Answer[]> = {
    'GET /v1/me': json(200, me()),
    'GET /v1/profile/me': json(200, PROFILE),
    'GET /v1/account/authentication-methods': json(200, { items: [{ id: 'password', type: 'password', displayName: null, createdAt: null, lastUsedAt: '2025-05-21T08:30:00Z' }] }),
    ...routes,
  };
  const calls: Call[] = [];
  const counts = new Map<string, number>();

  async function answer(call: Call): Promise<Response> {
    calls.push(call);
    const key = `${call.method} ${call.path.split('?')[0]}`;
    const entry = table[key];
    if (!entry) return problem(404, 'NOT_FOUND', `no fake route for ${key}`);
    const index = counts.get(key) ?? 0;
    counts.set(key, index + 1);
    const chosen = Array.isArray(entry) ? entry[Math.min(index, entry.length - 1)]! : entry;
    const response = typeof chosen === 'function' ? await chosen(call) : chosen;
    return response.clone();
  }

  const fetchImpl = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = input instanceof Request ? input : new Request(input, init);
    const url = new URL(request.url);
    const text = request.method === 'GET' || request.method === 'HEAD' ? '' : await request.text();
    let body: unknown = text;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      // not JSON: keep the text
    }
    return answer({ method: request.method, path: url.pathname + url.search, body, credentials: request.credentials, headers: Object.fromEntries(request.headers) });
  };

  const upload: UploadFetch = async (input, init) => {
    const url = new URL(input);
    return answer({
      method: init.method ?? 'GET',
      path: url.pathname + url.search,
      body: init.body,
      credentials: init.credentials,
      headers: Object.fromEntries(new Headers(init.headers as HeadersInit)),
    });
  };

  return {
    fetch: fetchImpl as typeof fetch,
    upload,
    calls,
    /** The calls of one route, "METHOD /path". */
    callsTo: (route: string) => calls.filter((call) => `${call.method} ${call.path.split('?')[0]}` === route),
  };
}

export type FakeGateway = ReturnType<typeof fakeGateway>;

/** Shows where the page sent the browser and with what router state. */
function SignedOutProbe() {
  const location = useLocation();
  return <p>Signed out page; state: {JSON.stringify(location.state)}</p>;
}

/** The profile page as App renders it (behind RequireSession), inside a session. */
export function renderProfilePage(gateway: FakeGateway) {
  polyfillDialog();
  const api = createApi(CONFIG, gateway.fetch);
  return render(
    <MemoryRouter initialEntries={['/profile']}>
      <SessionProvider config={CONFIG} api={api}>
        {/* The app's own language choice: English unless the profile (me) names another. */}
        <LanguageProvider>
          <Routes>
            <Route path="/profile" element={<RequireSession><ProfilePage uploadFetch={gateway.upload} /></RequireSession>} />
            <Route path="/signed-out" element={<SignedOutProbe />} />
            <Route path="/onboarding/:platformKey" element={<p>Onboarding page</p>} />
          </Routes>
        </LanguageProvider>
      </SessionProvider>
    </MemoryRouter>,
  );
}

/** jsdom has no modal dialogs: opening sets `open` (enough to show and query the contents). */
function polyfillDialog() {
  const prototype = HTMLDialogElement.prototype as HTMLDialogElement & { showModal?: () => void };
  if (typeof prototype.showModal === 'function') return;
  prototype.showModal = function showModal(this: HTMLDialogElement) {
    this.setAttribute('open', '');
  };
  prototype.close = function close(this: HTMLDialogElement) {
    this.removeAttribute('open');
  };
}
