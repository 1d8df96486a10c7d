import { GATEWAY_PERMISSIONS, type Permission } from '../domain/types.ts';
import type { PermissionsSource } from '../config/index.ts';

export { GATEWAY_PERMISSIONS };

/** Exactly those gateway permissions present in a space-separated OAuth `scope` (RFC 6749 §3.3). */
export function permissionsFromScope(scope: string | string[] | undefined): Permission[] {
  const granted = new Set(Array.isArray(scope) ? scope : (scope ?? '').split(' '));
  return GATEWAY_PERMISSIONS.filter((permission) => granted.has(permission));
}

/**
 * Zitadel's roles of the requesting client's project (shared/research/zitadel-api.md §4): in a JWT
 * access token or ID token the project of the client the token was issued to, in an introspection
 * answer the project of the introspecting client (the gateway's).
 */
export const ZITADEL_ROLES_CLAIM = 'urn:zitadel:iam:org:project:roles';

/** Zitadel's roles of one named project. */
export function zitadelProjectRolesClaim(projectId: string): string {
  return `urn:zitadel:iam:org:project:${projectId}:roles`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The gateway permissions one Zitadel roles claim grants. The claim is shaped
 * `{ "<roleKey>": { "<orgId>": "<orgDomain>" } }`; a role counts only when it is granted in at
 * least one organisation. Anything else (an array of names, a string, null, a role whose
 * organisations are not an object) grants nothing: a claim we cannot read is not a grant.
 * Only own keys equal to the three permission names are looked at, so prototype keys
 * (`__proto__`, `constructor`) and unrelated roles never count.
 */
function grantedByRolesClaim(claim: unknown, into: Set<Permission>): void {
  if (!isPlainObject(claim)) return;
  for (const permission of GATEWAY_PERMISSIONS) {
    if (!Object.hasOwn(claim, permission)) continue;
    const organisations = claim[permission];
    if (isPlainObject(organisations) && Object.keys(organisations).length > 0) into.add(permission);
  }
}

/**
 * The gateway permissions Zitadel's roles claims grant (role keys equal to the permission names):
 * `urn:zitadel:iam:org:project:roles` and, for each of `projectIds`,
 * `urn:zitadel:iam:org:project:{projectId}:roles`. The `{projectId}` claims of other projects are
 * never read: any client may ask Zitadel for any project's audience, and another project may
 * define a role of the same name.
 */
export function permissionsFromZitadelRoles(claims: Readonly<Record<string, unknown>>, projectIds: readonly string[] = []): Permission[] {
  return readZitadelRoles(claims, [ZITADEL_ROLES_CLAIM, ...projectIds.map(zitadelProjectRolesClaim)]);
}

function readZitadelRoles(claims: Readonly<Record<string, unknown>>, claimNames: readonly string[]): Permission[] {
  const granted = new Set<Permission>();
  for (const name of claimNames) grantedByRolesClaim(claims[name], granted);
  return GATEWAY_PERMISSIONS.filter((permission) => granted.has(permission));
}

function scopeOf(claims: Readonly<Record<string, unknown>>): string | string[] | undefined {
  const value = claims.scope ?? claims.scp; // `scp`: an array in some providers' tokens
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.filter((item): item is string => typeof item === 'string');
  return undefined;
}

export type PermissionReader = (claims: Readonly<Record<string, unknown>>) => Permission[];

/**
 * How OIDC_PERMISSIONS_FROM reads a token's claims (a JWT payload or an introspection answer),
 * built once: `scope` reads only the OAuth scope, `zitadel-roles` only the roles claims (the
 * plain one and those of `projectIds`). Only the three gateway permissions ever come out.
 */
export function createPermissionReader(source: PermissionsSource, options: { projectIds?: readonly string[] } = {}): PermissionReader {
  if (source === 'scope') return (claims) => permissionsFromScope(scopeOf(claims));
  const claimNames = [ZITADEL_ROLES_CLAIM, ...(options.projectIds ?? []).map(zitadelProjectRolesClaim)];
  return (claims) => readZitadelRoles(claims, claimNames);
}

/** Every permission any of the lists holds, once, in the catalogue's order. */
export function unionPermissions(...lists: readonly (readonly Permission[])[]): Permission[] {
  const held = new Set(lists.flat());
  return GATEWAY_PERMISSIONS.filter((permission) => held.has(permission));
}
