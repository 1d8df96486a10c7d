// Domain types shared by operations, services and repositories. They live below
// all three so that dependencies point down: a service never imports the router's
// module, and SQL never imports domain logic (GUIDE §7).
import type { operations } from '../../generated/gateway.ts';

/** Every operationId of the contract, as openapi-typescript generated them. */
export type OperationId = keyof operations;

/**
 * An operation's query parameters as the contract declares them (generated from
 * openapi/gateway.yaml), each optional one absent unless the client sent it. A service whose
 * input is an operation's query takes this type: its handler passes the validated query as it
 * is (the request pipeline has dropped every parameter the contract does not declare, and
 * checked the others), instead of copying each parameter by hand, and the parameter list lives
 * in the contract only.
 */
export type QueryParameters<K extends OperationId> = NonNullable<operations[K] extends { parameters: { query?: infer Q } } ? Q : never>;

/** The only permissions the gateway knows (spec: Gateway session). */
export type Permission = 'platforms:admin' | 'onboarding:schema:read' | 'onboarding:schema:write' | 'support:access';

export const GATEWAY_PERMISSIONS: readonly Permission[] = ['platforms:admin', 'onboarding:schema:read', 'onboarding:schema:write', 'support:access'];

/**
 * Permissions `platforms:admin` never stands in for: `support:access` lets its holder see a
 * platform as another person (issue 35), a power granted to a support team on its own.
 */
export const NOT_IMPLIED_BY_ADMIN: readonly Permission[] = ['support:access'];

export type OnboardingStatusValue = 'NOT_STARTED' | 'IN_PROGRESS' | 'GRACE' | 'COMPLETE';

/** The contract's OnboardingStatus object; always calculated by the server. */
export interface OnboardingStatus {
  status: OnboardingStatusValue;
  requirementVersion: number;
  missingFields: string[];
  canCompleteCentrally: boolean;
  /** Required documents whose current material version is not accepted (issue 25). */
  missingDocuments: { documentKey: string; kind: 'terms' | 'privacy' | 'custom'; version: number }[];
  /** The document versions the person's record accepts now. */
  acceptedDocuments: { documentKey: string; kind: 'terms' | 'privacy' | 'custom'; version: number }[];
  /** GRACE only (issue 36): from when what is missing blocks. */
  graceUntil?: string;
}

/** Whether a status lets the login go on to the platform: COMPLETE, or GRACE until its date (issue 36). */
export function letsThrough(status: OnboardingStatusValue): boolean {
  return status === 'COMPLETE' || status === 'GRACE';
}

/**
 * The three credentials and their powers (GUIDE §5, contract "Authentication"):
 * - `session`: the browser session cookie set by the callback (the person's own browser,
 *   the account center): the user's full permissions; origin-checked on writes.
 * - `platform`: a platform's own credential, returned by the exchange and sent by the
 *   platform BFF as the gateway cookie. Bound to one gateway session and one platform;
 *   acts for the user on user routes and its own platform's onboarding; never
 *   `platforms:admin`.
 * - `bearer`: an access token issued for this service by a trusted client.
 */
export type CredentialKind = 'session' | 'platform' | 'bearer';

/** Who is calling a user or admin route, resolved by the security handlers. */
export interface Principal {
  via: CredentialKind;
  /** Local user id; null for a bearer token whose subject never logged in through the gateway. */
  userId: string | null;
  sub: string;
  /** The permissions this credential may exercise (a platform credential never carries platforms:admin). */
  permissions: Permission[];
  /** The permissions the user holds, whatever this credential may exercise (reported, never enforced). */
  heldPermissions: Permission[];
  /** The gateway session behind a session or platform credential; null for Bearer. */
  session: { id: string; expiresAt: Date } | null;
  /** The platform a platform credential is bound to; null otherwise. */
  platform: { id: string; key: string } | null;
  /** The client a Bearer token was issued to (`client_id`, else `azp`); null otherwise. */
  clientId: string | null;
  /**
   * A central caller acts for every platform (the browser session of the account center, or
   * a Bearer token of a client in OIDC_CENTRAL_CLIENT_IDS). Every other caller needs a
   * platform claim equal to the path's platform for schema operations, unless it holds
   * platforms:admin.
   */
  central: boolean;
  /** The platforms a non-central caller acts for: its bound platform, or the Bearer token's OIDC_PLATFORM_CLAIM. */
  platformClaims: readonly string[];
  /**
   * When the permissions were read from the identity provider: the login that created the
   * session, or the Bearer token's `iat` (null when it has none).
   */
  permissionsReadAt: Date | null;
  /**
   * A support session (issue 35): the person's session used by an operator, and its grant.
   * Account operations of the person are refused on it (`x-support-session: false`).
   */
  supportAccessId?: string | null;
}
