// Component-test support for the schema editor: an in-memory gateway behind a fake fetch
// (given to createApi, as the app's own client), the session around it, and a router at a
// path. Not a test file itself (no .test.tsx), imported by the tests beside it.
import { renderWithIntl } from '../../../test/renderWithIntl.tsx';
import type { Language } from '../../../i18n/languages.ts';
import { MemoryRouter, Route, Routes } from 'react-router';
import { createApi, type Schemas } from '../../../api.ts';
import type { AccountCenterConfig } from '../../../config.ts';
import { SessionProvider, useSession, type Me, type Permission } from '../../../session.tsx';
import type { ReactNode } from 'react';
import { OnboardingAdmin } from './OnboardingAdmin.tsx';
import type { ChangePreview, CreateBody, Definition, UpdateBody } from './model.ts';

// jsdom has <dialog> without showModal/close: the open attribute stands in for them.
if (typeof HTMLDialogElement !== 'undefined' && !HTMLDialogElement.prototype.showModal) {
  HTMLDialogElement.prototype.showModal = function showModal(this: HTMLDialogElement) { this.setAttribute('open', ''); };
  HTMLDialogElement.prototype.close = function close(this: HTMLDialogElement) { this.removeAttribute('open'); };
}

export const CONFIG: AccountCenterConfig = { authBackendUrl: 'http://gateway.test/v1', authPlatformKey: 'ACCOUNT_CENTER' };
export const KEY = 'DEMO';

export function definition(overrides: Partial<Definition> & Pick<Definition, 'fieldKey'>): Definition {
  return {
    label: overrides.fieldKey,
    fieldType: 'TEXT',
    source: 'CUSTOM_FIELD',
    profileField: null,
    sharing: null,
    required: false,
    sortOrder: 10,
    options: [],
    validation: {},
    uiConfig: {},
    placeholder: null,
    description: null,
    translations: {},
    archived: false,
    archivedAt: null,
    createdAt: '2026-01-01T00:00:00Z',
    updatedAt: '2026-01-01T00:00:00Z',
    ...overrides,
  };
}

export function me(permissions: Permission[], memberships: Me['memberships'] = []): Me {
  return {
    user: { id: '00000000-0000-4000-8000-000000000001', sub: 'dev-user-admin', email: 'admin@example.test', displayName: 'Ada Admin', pictureUrl: null, locale: null },
    permissions,
    permissionsReadAt: null,
    authentication: 'session',
    platform: null,
    session: { id: '00000000-0000-4000-8000-000000000002', expiresAt: '2099-01-01T00:00:00Z' },
    memberships,
  };
}

export interface Recorded {
  method: string;
  path: string;
  query: URLSearchParams;
  body: unknown;
}

type Answer = { status: number; body?: unknown };

/**
 * A gateway of one platform (KEY) with its fields and requirement version. Changes behave as
 * the real one's: a dry run answers the preview (reopening `reopened` people), a real change
 * raises the version. `override` answers a request first when it returns something.
 */
export class FakeGateway {
  fields: Definition[];
  requirementVersion: number;
  reopened: number;
  platforms: Schemas['Platform'][] = [];
  /** Requirement versions in a grace period (issue 36). */
  graces: { requirementVersion: number; enforceAfter: string }[] = [];
  requests: Recorded[] = [];
  override: ((request: Recorded) => Answer | undefined) | null = null;

  constructor(fields: Definition[], { requirementVersion = 3, reopened = 1 } = {}) {
    this.fields = fields;
    this.requirementVersion = requirementVersion;
    this.reopened = reopened;
  }

  writes(): Recorded[] {
    return this.requests.filter((request) => request.method !== 'GET');
  }

  fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = input instanceof Request ? input : new Request(input, init);
    const url = new URL(request.url);
    const text = request.method === 'GET' || request.method === 'DELETE' ? '' : await request.text();
    const recorded: Recorded = { method: request.method, path: url.pathname, query: url.searchParams, body: text ? JSON.parse(text) : undefined };
    this.requests.push(recorded);
    const answer = this.override?.(recorded) ?? this.answer(recorded);
    return new Response(answer.body === undefined ? null : JSON.stringify(answer.body), {
      status: answer.status,
      headers: { 'Content-Type': answer.status >= 400 ? 'application/problem+json' : 'application/json' },
    });
  };

  private answer({ method, path, query, body }: Recorded): Answer {
    const dryRun = query.get('dryRun') === 'true';
    const fieldsPath = `/v1/platforms/${KEY}/onboarding/fields`;
    if (method === 'GET' && path === fieldsPath) {
      const items = this.fields.filter((field) => query.get('includeArchived') === 'true' || !field.archived)
        .sort((a, b) => a.sortOrder - b.sortOrder || (a.fieldKey < b.fieldKey ? -1 : 1));
      return { status: 200, body: { platformKey: KEY, requirementVersion: this.requirementVersion, items } };
    }
    if (path === `/v1/platforms/${KEY}/onboarding/grace`) {
      if (method === 'PUT') {
        const moved = new Date(Math.max(Date.parse((body as { enforceAfter: string }).enforceAfter), Date.now())).toISOString();
        this.graces = this.graces.filter((grace) => Date.parse(grace.enforceAfter) > Date.now()).map((grace) => ({ ...grace, enforceAfter: moved }));
      }
      const items = this.graces.filter((grace) => Date.parse(grace.enforceAfter) > Date.now());
      return { status: 200, body: { platformKey: KEY, requirementVersion: this.requirementVersion, items } };
    }
    if (method === 'GET' && path === '/v1/platforms') return { status: 200, body: { items: this.platforms, nextCursor: null } };
    if (method === 'GET' && path.startsWith('/v1/platforms/') && !path.includes('/onboarding')) {
      const platform = this.platforms.find((candidate) => path === `/v1/platforms/${candidate.platformKey}`);
      return platform ? { status: 200, body: platform } : problem(404, 'PLATFORM_NOT_FOUND', 'No platform has this key.');
    }
    if (method === 'POST' && path === fieldsPath) {
      const create = body as CreateBody;
      if (this.fields.some((field) => field.fieldKey === create.fieldKey)) return problem(409, 'CONFLICT', `The platform already has a field ${create.fieldKey}.`);
      const stored = definition({ ...create, profileField: create.profileField ?? null, placeholder: create.placeholder ?? null, description: create.description ?? null });
      return this.change(stored, Object.keys(create), dryRun, () => this.fields.push(stored), 201);
    }
    const fieldMatch = new RegExp(`^${fieldsPath}/([^/]+)$`).exec(path);
    const current = fieldMatch ? this.fields.find((field) => field.fieldKey === fieldMatch[1]) : undefined;
    if (fieldMatch && !current) return problem(404, 'FIELD_NOT_FOUND', 'The platform has no onboarding field with this key.');
    if (method === 'PATCH' && current) {
      const patch = body as UpdateBody;
      const next = { ...current, ...patch } as Definition;
      const changed = Object.keys(patch).filter((key) => JSON.stringify(patch[key as keyof UpdateBody]) !== JSON.stringify(current[key as keyof Definition]));
      return this.change(next, changed, dryRun, () => Object.assign(current, patch), 200);
    }
    if (method === 'DELETE' && current) {
      const next = { ...current, archived: true, archivedAt: '2026-02-01T00:00:00Z' };
      return this.change(next, current.archived ? [] : ['archived'], dryRun, () => Object.assign(current, { archived: true, archivedAt: next.archivedAt }), 200);
    }
    return problem(404, 'NOT_FOUND', `No route ${method} ${path}.`);
  }

  private change(field: Definition, changed: string[], dryRun: boolean, apply: () => void, status: number): Answer {
    if (dryRun) {
      const preview: ChangePreview = {
        dryRun: true,
        changed: changed.length > 0,
        changedFields: changed,
        field,
        requirementVersion: this.requirementVersion + (changed.length > 0 ? 1 : 0),
        reopenedUsers: changed.length > 0 ? this.reopened : 0,
        enforceAfter: null,
        graceUsers: 0,
        meetingUsers: 0,
      };
      return { status: 200, body: preview };
    }
    if (changed.length > 0) {
      apply();
      this.requirementVersion += 1;
      this.reopened = 0;
    }
    return { status, body: field };
  }
}

export function problem(status: number, code: string, detail: string, errors?: { pointer: string; message: string }[]): Answer {
  return { status, body: { type: 'about:blank', title: code, status, code, detail, requestId: 'req-1', ...(errors ? { errors } : {}) } };
}

/** The editor at `path`, mounted as App.tsx mounts it, for a caller with these permissions. */
export function renderAdmin(path: string, gateway: FakeGateway, permissions: Permission[], memberships: Me['memberships'] = [], language: Language = 'en') {
  const original = gateway.fetch;
  const withMe = async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.pathname === '/v1/me') return new Response(JSON.stringify(me(permissions, memberships)), { status: 200, headers: { 'Content-Type': 'application/json' } });
    return original(input, init);
  };
  const api = createApi(CONFIG, withMe);
  return renderWithIntl(
    <SessionProvider config={CONFIG} api={api}>
      <MemoryRouter initialEntries={[path]}>
        <Routes>
          <Route path="/admin/onboarding/*" element={<SessionLoaded><OnboardingAdmin /></SessionLoaded>} />
          <Route path="*" element={<p>Elsewhere</p>} />
        </Routes>
      </MemoryRouter>
    </SessionProvider>,
    { language },
  );
}

/** As RequireSession: the page only once the session is known. */
function SessionLoaded({ children }: { children: ReactNode }) {
  const { me } = useSession();
  return me ? <>{children}</> : <p>Loading the session…</p>;
}
