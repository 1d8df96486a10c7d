import { describe, it, expect } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { handlers } from '../../src/api/handlers.ts';
import { isPending } from '../../src/api/pending.ts';
import { ERROR_CATALOGUE } from '../../src/errors/catalogue.ts';

/**
 * Drift between the contract (openapi/gateway.yaml), the handler map, the error
 * catalogue and docs/development.md (its "Pending operations"). The YAML is read from disk here, independently of the
 * app's own loader, so a loader bug cannot hide a drift.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CONTRACT_FILE = `${ROOT}openapi/gateway.yaml`;
const PENDING_FILE = `${ROOT}docs/development.md`;

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

interface YamlOperation {
  operationId?: string;
  security?: Array<Record<string, string[]>>;
  responses?: Record<string, { $ref?: string }>;
  'x-required-permissions'?: unknown;
}

interface Operation {
  operationId: string;
  method: string;
  path: string;
  raw: YamlOperation;
}

const contract = parse(readFileSync(CONTRACT_FILE, 'utf8')) as {
  paths: Record<string, Record<string, unknown>>;
  components: { schemas: Record<string, { enum?: string[]; description?: string }> };
  info: { description: string };
  security?: unknown;
};

const operations: Operation[] = [];
for (const [path, item] of Object.entries(contract.paths)) {
  for (const method of HTTP_METHODS) {
    const raw = item[method] as YamlOperation | undefined;
    if (!raw) continue;
    operations.push({ operationId: String(raw.operationId), method: method.toUpperCase(), path, raw });
  }
}
const byId = new Map(operations.map((operation) => [operation.operationId, operation]));

const sorted = (values: Iterable<string>) => [...values].sort();

/** The operations the spec lists, with the operationIds the contract publishes for them (stable). */
const SPEC_OPERATIONS: Array<[method: string, path: string, operationId: string]> = [
  // authentication flow (4)
  ['GET', '/v1/auth/start', 'startAuthentication'],
  ['GET', '/v1/auth/callback', 'handleIdpCallback'],
  ['GET', '/v1/auth/resume', 'resumeAuthentication'],
  ['POST', '/v1/auth/exchange', 'exchangeAuthenticationHandoff'],
  // onboarding, signed-in user (4)
  ['GET', '/v1/onboarding/{platformKey}/requirements', 'getOnboardingRequirements'],
  ['GET', '/v1/onboarding/{platformKey}/status', 'getOnboardingStatus'],
  ['PUT', '/v1/onboarding/{platformKey}/values', 'putOnboardingValues'],
  ['POST', '/v1/onboarding/{platformKey}/complete', 'completeOnboarding'],
  // platform registry (7) and its audit trail (1)
  ['GET', '/v1/platforms', 'listPlatforms'],
  ['POST', '/v1/platforms', 'createPlatform'],
  ['GET', '/v1/platforms/{platformKey}', 'getPlatform'],
  ['PATCH', '/v1/platforms/{platformKey}', 'updatePlatform'],
  ['DELETE', '/v1/platforms/{platformKey}', 'deactivatePlatform'],
  ['POST', '/v1/platforms/{platformKey}/activate', 'activatePlatform'],
  ['POST', '/v1/platforms/{platformKey}/credentials/rotate', 'rotatePlatformCredentials'],
  ['GET', '/v1/audit-events', 'listAuditEvents'],
  // onboarding schema (4)
  ['GET', '/v1/platforms/{platformKey}/onboarding/fields', 'listOnboardingFields'],
  ['POST', '/v1/platforms/{platformKey}/onboarding/fields', 'createOnboardingField'],
  ['PATCH', '/v1/platforms/{platformKey}/onboarding/fields/{fieldKey}', 'updateOnboardingField'],
  ['DELETE', '/v1/platforms/{platformKey}/onboarding/fields/{fieldKey}', 'archiveOnboardingField'],
  // profile and account (7)
  ['GET', '/v1/me', 'getMe'],
  ['GET', '/v1/profile/me', 'getMyProfile'],
  ['PATCH', '/v1/profile/me', 'updateMyProfile'],
  ['POST', '/v1/profile/me/avatar/upload-request', 'requestAvatarUpload'],
  ['GET', '/v1/account/authentication-methods', 'listAuthenticationMethods'],
  ['POST', '/v1/account/password', 'changePassword'],
  ['DELETE', '/v1/account/me', 'deleteMyAccount'],
  // health (2)
  ['GET', '/health/live', 'getLiveness'],
  ['GET', '/health/ready', 'getReadiness'],
];

const FLOW_OPERATIONS = ['startAuthentication', 'handleIdpCallback', 'resumeAuthentication', 'exchangeAuthenticationHandoff'];
/** The sign-out steps under /v1/auth/ (issue 12): beyond the spec's four flow operations. */
const SIGN_OUT_OPERATIONS = ['signOutBrowser', 'signOut', 'confirmSignOut', 'createSignOutToken', 'finishSignOut', 'receiveBackchannelLogout'];
/** A step-up of a platform's session (fresh sign-in): beyond the spec, for a platform credential (the gateway cookie) only. */
const STEP_UP_OPERATIONS = ['createStepUpLogin'];
/**
 * No credential: the flow's entry points, health, the avatar uploads (authorised by their signed
 * URL) and images (public, unguessable URLs), the identity provider's back-channel logout (its
 * signed token) and the return from its sign-out (a signed state), and the gateway's public keys.
 */
/** A platform's back end with its Basic credentials: the exchange, and the security event poll (RFC 8936, issue 26). */
const PLATFORM_BASIC_OPERATIONS = ['exchangeAuthenticationHandoff', 'pollSecurityEvents'];
const PUBLIC_OPERATIONS = [
  'startAuthentication', 'handleIdpCallback', 'getLiveness', 'getReadiness', 'uploadAvatar', 'confirmAvatarUpload', 'getAvatar',
  'finishSignOut', 'receiveBackchannelLogout', 'getJwks',
  // The deleting browser's view of the platforms' acknowledgements: no session left, its receipt cookie instead (issue 26).
  'getAccountDeletion',
  // A platform's logo: its branded pages show it before anyone signs in (issue 27).
  'getPlatformLogo',
];
/** The browser's session if it has one, else nobody: signing out is harmless without a session. */
const OPTIONAL_SESSION_OPERATIONS = ['signOutBrowser', 'signOut', 'confirmSignOut'];
/** A gateway session only (the browser's or a platform credential): a sign-out token is bound to one. */
// answerSupportAccess: only the person's own browser answers a support access request (issue 35).
const SESSION_ONLY_OPERATIONS = ['createSignOutToken', 'answerSupportAccess'];
const USER_OR_ADMIN_SECURITY = [{ gatewayCookieAuth: [] }, { bearerAuth: [] }];
const PERMISSIONS = ['platforms:admin', 'onboarding:schema:read', 'onboarding:schema:write', 'support:access'];

describe('contract operations and the handler map', () => {
  it('the contract has operations, each with a unique operationId', () => {
    expect(operations.length).toBeGreaterThan(0);
    const ids = operations.map((operation) => operation.operationId);
    expect(ids.filter((id) => id === 'undefined')).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('every operationId of the contract has a handler, and every handler an operation (both ways)', () => {
    const inContract = new Set(operations.map((operation) => operation.operationId));
    const inHandlers = new Set(Object.keys(handlers));
    expect({ withoutHandler: sorted([...inContract].filter((id) => !inHandlers.has(id))) }).toEqual({ withoutHandler: [] });
    expect({ withoutOperation: sorted([...inHandlers].filter((id) => !inContract.has(id))) }).toEqual({ withoutOperation: [] });
    for (const [id, handler] of Object.entries(handlers)) {
      expect(typeof handler, id).toBe('function');
    }
  });
});

describe('operations of the spec', () => {
  it('the four flow operations have exactly their operationIds, methods and paths', () => {
    const flow = operations.filter((operation) => operation.path.startsWith('/v1/auth/')
      && !SIGN_OUT_OPERATIONS.includes(operation.operationId) && !STEP_UP_OPERATIONS.includes(operation.operationId));
    expect(sorted(flow.map((operation) => `${operation.method} ${operation.path} ${operation.operationId}`))).toEqual(
      sorted(SPEC_OPERATIONS.slice(0, 4).map(([method, path, id]) => `${method} ${path} ${id}`)),
    );
    expect(sorted(flow.map((operation) => operation.operationId))).toEqual(sorted(FLOW_OPERATIONS));
  });

  it('start and callback are public (security: [])', () => {
    for (const id of ['startAuthentication', 'handleIdpCallback']) {
      expect(byId.get(id)?.raw.security, id).toEqual([]);
    }
  });

  it('resume accepts the gateway cookie only', () => {
    expect(byId.get('resumeAuthentication')?.raw.security).toEqual([{ gatewayCookieAuth: [] }]);
  });

  it('exchange and the security event poll accept platform Basic only, and no other operation uses platform Basic', () => {
    for (const id of PLATFORM_BASIC_OPERATIONS) expect(byId.get(id)?.raw.security, id).toEqual([{ platformBasicAuth: [] }]);
    const others = operations.filter(
      (operation) =>
        !PLATFORM_BASIC_OPERATIONS.includes(operation.operationId) &&
        (operation.raw.security ?? []).some((requirement) => 'platformBasicAuth' in requirement),
    );
    expect(others.map((operation) => operation.operationId)).toEqual([]);
  });

  it('every operation states its security: public ones none, user and admin ones the cookie or a Bearer token', () => {
    // No document-level default: each operation states its security explicitly.
    expect(contract.security).toBeUndefined();
    for (const operation of operations) {
      expect(operation.raw.security, `${operation.operationId} declares security`).toBeDefined();
      if (PUBLIC_OPERATIONS.includes(operation.operationId)) {
        expect(operation.raw.security, operation.operationId).toEqual([]);
      } else if (OPTIONAL_SESSION_OPERATIONS.includes(operation.operationId)) {
        expect(operation.raw.security, operation.operationId).toEqual([{ gatewayCookieAuth: [] }, {}]);
      } else if (SESSION_ONLY_OPERATIONS.includes(operation.operationId) || STEP_UP_OPERATIONS.includes(operation.operationId)) {
        expect(operation.raw.security, operation.operationId).toEqual([{ gatewayCookieAuth: [] }]);
      } else if (!FLOW_OPERATIONS.includes(operation.operationId) && !PLATFORM_BASIC_OPERATIONS.includes(operation.operationId)) {
        expect(operation.raw.security, operation.operationId).toEqual(USER_OR_ADMIN_SECURITY);
      }
    }
  });

  it.each(SPEC_OPERATIONS)('%s %s exists as %s', (method, path, operationId) => {
    const operation = byId.get(operationId);
    expect(operation, `${operationId} is in the contract`).toBeDefined();
    expect({ method: operation?.method, path: operation?.path }).toEqual({ method, path });
  });

  it('the spec list above covers 29 operations (4 flow, 4 onboarding, 8 registry and audit, 4 schema, 7 profile and account, 2 health)', () => {
    expect(SPEC_OPERATIONS).toHaveLength(29);
    expect(new Set(SPEC_OPERATIONS.map(([method, path]) => `${method} ${path}`)).size).toBe(29);
  });
});

describe('error codes', () => {
  const enumCodes = contract.components.schemas.ErrorCode?.enum ?? [];
  const catalogueCodes = Object.keys(ERROR_CATALOGUE);

  it('the ErrorCode enum of the contract equals the keys of ERROR_CATALOGUE', () => {
    expect(enumCodes.length).toBeGreaterThan(0);
    expect(new Set(enumCodes).size).toBe(enumCodes.length);
    expect(sorted(enumCodes)).toEqual(sorted(catalogueCodes));
  });

  /** Rows `| \`CODE\` | 401 | …` of a markdown table. */
  function tableRows(markdown: string): Map<string, number> {
    const rows = new Map<string, number>();
    for (const match of markdown.matchAll(/^\s*\|\s*`([A-Z_]+)`\s*\|\s*(\d{3})\s*\|/gm)) {
      expect(rows.has(match[1]!), `${match[1]} listed once`).toBe(false);
      rows.set(match[1]!, Number(match[2]));
    }
    return rows;
  }

  const expectedTable = Object.fromEntries(Object.entries(ERROR_CATALOGUE).map(([code, { status }]) => [code, status]));

  it('the ErrorCode description table gives every code with its catalogue status', () => {
    const rows = tableRows(contract.components.schemas.ErrorCode?.description ?? '');
    expect(Object.fromEntries(rows)).toEqual(expectedTable);
  });

  it('the error table of the API description gives every code with its catalogue status', () => {
    const rows = tableRows(contract.info.description);
    expect(Object.fromEntries(rows)).toEqual(expectedTable);
  });

  it('the codes the spec names keep their exact names and statuses', () => {
    expect(ERROR_CATALOGUE.CENTRAL_ONBOARDING_DISABLED.status).toBe(409);
    expect(ERROR_CATALOGUE.PLATFORM_CALLBACK_NOT_CONFIGURED.status).toBe(409);
    expect(ERROR_CATALOGUE.CONFLICT.status).toBe(409);
    expect(ERROR_CATALOGUE.TOKEN_SUBJECT_MISMATCH.status).toBe(401);
  });

  it('every catalogue entry has an error status and a non-empty title', () => {
    for (const [code, { status, title }] of Object.entries(ERROR_CATALOGUE)) {
      expect(status, code).toBeGreaterThanOrEqual(400);
      expect(status, code).toBeLessThanOrEqual(599);
      expect(title.trim(), code).not.toBe('');
    }
  });
});

/**
 * The operationIds listed under `## Pending operations` in docs/development.md: a markdown
 * list, one backticked operationId per item.
 */
function documentedPendingOperations(markdown: string): string[] {
  const lines = markdown.split(/\r?\n/);
  const start = lines.findIndex((line) => /^##\s+Pending operations\s*$/.test(line));
  if (start === -1) throw new Error('docs/development.md has no "## Pending operations" section');
  const ids: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (/^#{1,2}\s/.test(line)) break;
    const item = /^\s*[-*+]\s+`([A-Za-z][A-Za-z0-9]*)`/.exec(line);
    if (item) ids.push(item[1]!);
  }
  return ids;
}

describe('pending operations', () => {
  const pendingIds = sorted(Object.entries(handlers).filter(([, handler]) => isPending(handler)).map(([id]) => id));

  it('isPending tells a pending handler from a real one', () => {
    expect(isPending(handlers.getLiveness)).toBe(false);
    expect(isPending(handlers.startAuthentication)).toBe(false);
    expect(isPending(async () => ({ status: 204 }))).toBe(false);
  });

  it('the flow and health operations are implemented, never pending', () => {
    for (const id of [...FLOW_OPERATIONS, 'getLiveness', 'getReadiness']) {
      expect(pendingIds, id).not.toContain(id);
    }
  });

  it("docs/development.md's \"Pending operations\" list equals the pending handlers exactly", () => {
    expect(existsSync(PENDING_FILE), 'docs/development.md exists').toBe(true);
    const listed = documentedPendingOperations(readFileSync(PENDING_FILE, 'utf8'));
    expect(new Set(listed).size, 'no operationId listed twice').toBe(listed.length);
    expect(sorted(listed)).toEqual(pendingIds);
  });

  it('the pending-list parser reads the documented format (and stops at the next section)', () => {
    const sample = [
      '# Title',
      '## Pending operations',
      '',
      'These answer 501:',
      '',
      '- `getMe` (issue #12)',
      '* `listPlatforms`',
      '## Next',
      '- `notPending`',
    ].join('\n');
    expect(documentedPendingOperations(sample)).toEqual(['getMe', 'listPlatforms']);
    expect(() => documentedPendingOperations('# nothing')).toThrow(/Pending operations/);
  });

  it('an operation documents 501 NOT_IMPLEMENTED exactly when its handler is pending', () => {
    const documents501 = sorted(operations.filter((operation) => '501' in (operation.raw.responses ?? {})).map((operation) => operation.operationId));
    expect({
      documents501ButImplemented: documents501.filter((id) => !pendingIds.includes(id)),
      pendingWithout501: pendingIds.filter((id) => !documents501.includes(id)),
    }).toEqual({ documents501ButImplemented: [], pendingWithout501: [] });
  });
});

describe('x-required-permissions', () => {
  const withPermissions = operations.filter((operation) => 'x-required-permissions' in operation.raw);

  it('lists only the four known permissions, as a non-empty array without repeats', () => {
    expect(withPermissions.length).toBeGreaterThan(0);
    for (const operation of withPermissions) {
      const value = operation.raw['x-required-permissions'];
      expect(Array.isArray(value), operation.operationId).toBe(true);
      const list = value as unknown[];
      expect(list.length, operation.operationId).toBeGreaterThan(0);
      expect(new Set(list).size, operation.operationId).toBe(list.length);
      for (const permission of list) expect(PERMISSIONS, operation.operationId).toContain(permission);
    }
  });

  it('registry and audit operations need platforms:admin; schema reads and writes need their scope', () => {
    const expected: Record<string, string[]> = {
      listPlatforms: ['platforms:admin'],
      createPlatform: ['platforms:admin'],
      getPlatform: ['platforms:admin'],
      updatePlatform: ['platforms:admin'],
      deactivatePlatform: ['platforms:admin'],
      activatePlatform: ['platforms:admin'],
      rotatePlatformCredentials: ['platforms:admin'],
      listAuditEvents: ['platforms:admin'],
      listSecurityEventDeliveries: ['platforms:admin'],
      // Branding writes (issue 27); its read is for any signed-in caller.
      setPlatformBranding: ['platforms:admin'],
      clearPlatformBranding: ['platforms:admin'],
      uploadPlatformLogo: ['platforms:admin'],
      deletePlatformLogo: ['platforms:admin'],
      listOnboardingFields: ['onboarding:schema:read'],
      createOnboardingField: ['onboarding:schema:write'],
      updateOnboardingField: ['onboarding:schema:write'],
      archiveOnboardingField: ['onboarding:schema:write'],
      // Grace periods for requirement changes (issue 36)
      listRequirementGraces: ['onboarding:schema:read'],
      moveRequirementGraces: ['onboarding:schema:write'],
      listDocuments: ['onboarding:schema:read'],
      createDocumentDraft: ['onboarding:schema:write'],
      getDocumentVersion: ['onboarding:schema:read'],
      updateDocumentDraft: ['onboarding:schema:write'],
      publishDocumentVersion: ['onboarding:schema:write'],
      listPersonAcceptances: ['onboarding:schema:read'],
      // Support access (issue 35): a permission of its own, never implied by platforms:admin.
      requestSupportAccess: ['support:access'],
      listSupportAccess: ['support:access'],
      endSupportAccess: ['support:access'],
    };
    const actual = Object.fromEntries(withPermissions.map((operation) => [operation.operationId, operation.raw['x-required-permissions']]));
    expect(actual).toEqual(expected);
  });

  it('public and platform-Basic operations declare no permissions', () => {
    for (const id of [...PUBLIC_OPERATIONS, ...PLATFORM_BASIC_OPERATIONS, 'resumeAuthentication']) {
      expect(byId.get(id)?.raw['x-required-permissions'], id).toBeUndefined();
    }
  });
});
