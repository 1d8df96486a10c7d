// Test support for the platform pages' component tests (not part of the app's bundle: only
// *.test.tsx import it). A fake gateway behind createApi's fetch, the session around the
// pages, and a memory router at a given address.
import { renderWithIntl } from '../../../test/renderWithIntl.tsx';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router';
import { createApi } from '../../../api.ts';
import type { AccountCenterConfig } from '../../../config.ts';
import { SessionProvider, type Me } from '../../../session.tsx';
import { PlatformsAdmin } from './PlatformsAdmin.tsx';
import type { Platform } from './model.ts';

export interface SentRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  body: unknown;
}
export type Answer = { status: number; body?: unknown };
export type Handler = (request: SentRequest) => Answer | Promise<Answer> | undefined;

const CONFIG: AccountCenterConfig = { authBackendUrl: 'http://gateway.test/v1', authPlatformKey: 'ACCOUNT_CENTER' };

export const ME: Me = {
  user: { id: '0b5f5a8e-8f8a-4d43-9f0e-2c1a1f0c0a01', sub: 'dev-user-admin', email: 'admin@example.test', displayName: 'Ada Admin', pictureUrl: null, locale: null },
  permissions: ['platforms:admin'],
  permissionsReadAt: null,
  authentication: 'session',
  platform: null,
  memberships: [],
  session: { id: '2d0c3b8e-0a4c-4f5e-9d1b-7e6f5a4b3c2d', expiresAt: '2030-01-01T00:00:00Z' },
};

export function problem(status: number, code: string, detail: string, errors?: { pointer: string; message: string }[]): Answer {
  return { status, body: { type: 'about:blank', title: code, status, code, detail, requestId: 'req-test', ...(errors ? { errors } : {}) } };
}

export function platformFixture(overrides: Partial<Platform> = {}): Platform {
  return {
    platformKey: 'DEMO_APP',
    displayName: 'Demo app',
    callbackUrl: 'https://demo.example.test/auth/callback',
    backchannelLogoutUrl: null,
    eventDelivery: 'none',
    eventReceiverUrl: null,
    allowedReturnUrls: ['https://demo.example.test/', 'https://demo.example.test/app/'],
    defaultOnboardingMode: 'central',
    centralOnboardingEnabled: true,
    platformOnboardingPath: null,
    metadata: { team: 'identity' },
    handoffChallengeRequired: true,
    supportAccess: 'off',
    sensitive: false,
    supportSignInUrl: null,
    defaultLanguage: null,
    active: true,
    clientId: 'pc_test_client',
    requirementVersion: 2,
    createdAt: '2025-05-01T09:00:00Z',
    updatedAt: '2025-05-20T14:12:00Z',
    ...overrides,
  };
}

/** A fake gateway: /v1/me answers as an administrator; every other request goes to `handler` and is recorded. */
export function fakeGateway(handler: Handler) {
  const sent: SentRequest[] = [];
  const fetchImpl = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = input instanceof Request ? input : new Request(input, init);
    const url = new URL(request.url);
    const text = await request.text();
    const entry: SentRequest = { method: request.method, path: url.pathname, query: url.searchParams, body: text ? JSON.parse(text) : undefined };
    if (entry.path === '/v1/me') return json({ status: 200, body: ME });
    sent.push(entry);
    const answer = (await handler(entry)) ?? problem(404, 'NOT_FOUND', `No fake answer for ${entry.method} ${entry.path}`);
    return json(answer);
  };
  return { sent, fetchImpl };
}

function json({ status, body }: Answer): Response {
  const problemType = status >= 400 ? 'application/problem+json' : 'application/json';
  return new Response(body === undefined ? null : JSON.stringify(body), { status, headers: { 'Content-Type': problemType } });
}

/** Where the router is now, for assertions on navigation. */
function LocationProbe() {
  const location = useLocation();
  return <output data-testid="location">{location.pathname + location.search}</output>;
}

/** The platform pages at `path`, signed in as an administrator, talking to `fetchImpl`. */
export function renderPlatforms(path: string, fetchImpl: typeof fetch) {
  const api = createApi(CONFIG, fetchImpl);
  return renderWithIntl(
    <SessionProvider config={CONFIG} api={api}>
      <MemoryRouter initialEntries={[path]}>
        <Routes>
          <Route path="/admin/platforms/*" element={<PlatformsAdmin />} />
        </Routes>
        <LocationProbe />
      </MemoryRouter>
    </SessionProvider>,
  );
}

/** jsdom has no modal dialogs: open and close set the attribute, as the browser does. */
export function polyfillDialog() {
  const proto = HTMLDialogElement.prototype as HTMLDialogElement & { showModal?: () => void };
  if (!proto.showModal) {
    proto.showModal = function showModal(this: HTMLDialogElement) {
      this.setAttribute('open', '');
    };
  }
  if (!('close' in proto) || typeof proto.close !== 'function') {
    proto.close = function close(this: HTMLDialogElement) {
      this.removeAttribute('open');
    };
  }
}
