import type { Permission } from '../api/types.ts';

/** The only scopes the gateway copies from an access token (spec: Gateway session). */
export const GATEWAY_PERMISSIONS: readonly Permission[] = ['platforms:admin', 'onboarding:schema:read', 'onboarding:schema:write'];

/** Exactly those gateway permissions present in a space-separated OAuth `scope` (RFC 6749 §3.3). */
export function permissionsFromScope(scope: string | string[] | undefined): Permission[] {
  const granted = new Set(Array.isArray(scope) ? scope : (scope ?? '').split(' '));
  return GATEWAY_PERMISSIONS.filter((permission) => granted.has(permission));
}
