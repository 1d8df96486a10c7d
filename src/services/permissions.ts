import { GATEWAY_PERMISSIONS, type Permission } from '../domain/types.ts';

export { GATEWAY_PERMISSIONS };

/** Exactly those gateway permissions present in a space-separated OAuth `scope` (RFC 6749 §3.3). */
export function permissionsFromScope(scope: string | string[] | undefined): Permission[] {
  const granted = new Set(Array.isArray(scope) ? scope : (scope ?? '').split(' '));
  return GATEWAY_PERMISSIONS.filter((permission) => granted.has(permission));
}
