// The dev identity provider's seeded users and the permission scopes it knows.

export interface DevIdpUser {
  sub: string;
  username: string;
  password: string;
  email: string;
  givenName: string;
  familyName: string;
  /** Gateway permissions: granted as scopes (RFC 9068 shape) or as Zitadel project roles (Zitadel shape). */
  permissions: string[];
}

/** A user's profile and permissions: everything but the credential (the accounts keep that, accounts.ts). */
export type DevIdpProfile = Omit<DevIdpUser, 'password'>;

/** Permission scopes the gateway understands (spec: "Permissions"). */
export const PERMISSION_SCOPES = ['platforms:admin', 'onboarding:schema:read', 'onboarding:schema:write', 'support:access'] as const;
export type PermissionScope = (typeof PERMISSION_SCOPES)[number];

/** OIDC scopes whose claims the IdP releases (OIDC Core §5.4); they also appear in the JWT `scope`. */
export const OIDC_SCOPES = ['openid', 'profile', 'email'] as const;

/**
 * Seeded users, with their published seed passwords. `sub` values are stable so that local data
 * keyed by subject survives restarts. A changed password replaces the seed one (accounts.ts).
 */
export const DEV_USERS: DevIdpUser[] = [
  {
    sub: 'dev-user-alice',
    username: 'alice',
    password: 'alice-password',
    email: 'alice@example.test',
    givenName: 'Alice',
    familyName: 'Example',
    permissions: [],
  },
  {
    sub: 'dev-user-admin',
    username: 'admin',
    password: 'admin-password',
    email: 'admin@example.test',
    givenName: 'Ada',
    familyName: 'Admin',
    // support:access is granted to the demo administrator on its own (issue 35): platforms:admin never implies it.
    permissions: ['platforms:admin', 'onboarding:schema:read', 'onboarding:schema:write', 'support:access'],
  },
];

export function userMayUseScope(user: DevIdpProfile | undefined, scope: string): boolean {
  if (!user) return false;
  if ((OIDC_SCOPES as readonly string[]).includes(scope)) return true;
  return user.permissions.includes(scope);
}
