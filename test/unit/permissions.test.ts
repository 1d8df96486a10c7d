// Reading the three gateway permissions out of token claims: the OAuth `scope` (the dev provider,
// RFC 9068 §2.2.3) or Zitadel's project roles claims (shared/research/zitadel-api.md §4). Only
// the three names are ever copied; malformed claims grant nothing and never throw.

import { describe, expect, it } from 'vitest';
import { createPermissionReader, permissionsFromScope, permissionsFromZitadelRoles, unionPermissions } from '../../src/oidc/permissions.ts';

const ROLES = 'urn:zitadel:iam:org:project:roles';
const PROJECT = '200000000000000001';
const PROJECT_ROLES = `urn:zitadel:iam:org:project:${PROJECT}:roles`;
const OTHER_PROJECT_ROLES = 'urn:zitadel:iam:org:project:999999999999999999:roles';
const ORG = { '200000000000000009': 'acme.zitadel.test' };

describe('permissionsFromScope', () => {
  it('copies exactly the gateway permissions, in a stable order', () => {
    expect(permissionsFromScope('openid onboarding:schema:write profile platforms:admin other')).toEqual(['platforms:admin', 'onboarding:schema:write']);
    expect(permissionsFromScope(['onboarding:schema:read', 'x'])).toEqual(['onboarding:schema:read']);
  });

  it('ignores near misses, prefixes and case variants', () => {
    expect(permissionsFromScope('platforms:admin:x PLATFORMS:ADMIN onboarding:schema platforms')).toEqual([]);
  });

  it('is empty for no scope', () => {
    expect(permissionsFromScope(undefined)).toEqual([]);
    expect(permissionsFromScope('')).toEqual([]);
  });
});

describe('permissionsFromZitadelRoles', () => {
  it("reads the role keys of the requesting project's claim", () => {
    const claims = { [ROLES]: { 'platforms:admin': ORG, 'onboarding:schema:read': ORG, 'some-other-role': ORG } };
    expect(permissionsFromZitadelRoles(claims)).toEqual(['platforms:admin', 'onboarding:schema:read']);
  });

  it('reads the project-specific claim of a named project, and only of that one', () => {
    expect(permissionsFromZitadelRoles({ [PROJECT_ROLES]: { 'onboarding:schema:write': ORG } }, [PROJECT])).toEqual(['onboarding:schema:write']);
    // Another project may define a role with the same key: it grants nothing here.
    expect(permissionsFromZitadelRoles({ [OTHER_PROJECT_ROLES]: { 'platforms:admin': ORG } }, [PROJECT])).toEqual([]);
    expect(permissionsFromZitadelRoles({ [PROJECT_ROLES]: { 'platforms:admin': ORG } })).toEqual([]);
  });

  it('unites both claims', () => {
    const claims = { [ROLES]: { 'onboarding:schema:read': ORG }, [PROJECT_ROLES]: { 'platforms:admin': ORG } };
    expect(permissionsFromZitadelRoles(claims, [PROJECT])).toEqual(['platforms:admin', 'onboarding:schema:read']);
  });

  it('ignores a scope claim (Zitadel never sets one; a token that does is not read that way)', () => {
    expect(permissionsFromZitadelRoles({ scope: 'platforms:admin' })).toEqual([]);
  });

  const malformed: [string, unknown][] = [
    ['an array of role names', ['platforms:admin']],
    ['a space-separated string', 'platforms:admin'],
    ['null', null],
    ['a number', 42],
    ['true', true],
    ['a role whose organisations are an array', { 'platforms:admin': ['200000000000000009'] }],
    ['a role whose organisations are a string', { 'platforms:admin': 'acme.zitadel.test' }],
    ['a role with no organisation', { 'platforms:admin': {} }],
    ['a role set to true', { 'platforms:admin': true }],
    ['a role set to null', { 'platforms:admin': null }],
  ];
  it.each(malformed)('grants nothing for %s, without throwing', (_name, value) => {
    expect(permissionsFromZitadelRoles({ [ROLES]: value, [PROJECT_ROLES]: value }, [PROJECT])).toEqual([]);
  });

  it('keeps what a well-formed claim grants when the other one is malformed', () => {
    expect(permissionsFromZitadelRoles({ [ROLES]: ['onboarding:schema:read'], [PROJECT_ROLES]: { 'platforms:admin': ORG } }, [PROJECT])).toEqual(['platforms:admin']);
  });

  it('is not fooled by prototype keys', () => {
    const claims = JSON.parse(`{"${ROLES}": {"__proto__": {"platforms:admin": {"1": "x"}}, "constructor": {"1": "x"}}}`) as Record<string, unknown>;
    expect(permissionsFromZitadelRoles(claims)).toEqual([]);
  });
});

describe('createPermissionReader', () => {
  const claims = { scope: 'openid onboarding:schema:read', [ROLES]: { 'platforms:admin': ORG }, [PROJECT_ROLES]: { 'onboarding:schema:write': ORG } };

  it('scope: reads `scope` (or `scp`) and nothing else', () => {
    const read = createPermissionReader('scope');
    expect(read(claims)).toEqual(['onboarding:schema:read']);
    expect(read({ scp: ['platforms:admin', 'openid'] })).toEqual(['platforms:admin']);
    expect(read({ scope: 42 })).toEqual([]);
  });

  it('zitadel-roles: reads the roles claims (the given project ids included) and never `scope`', () => {
    expect(createPermissionReader('zitadel-roles', { projectIds: [PROJECT] })(claims)).toEqual(['platforms:admin', 'onboarding:schema:write']);
    expect(createPermissionReader('zitadel-roles')(claims)).toEqual(['platforms:admin']);
  });
});

describe('unionPermissions', () => {
  it('unites lists without duplicates, in the catalogue order', () => {
    expect(unionPermissions(['onboarding:schema:write'], ['platforms:admin', 'onboarding:schema:write'], [])).toEqual(['platforms:admin', 'onboarding:schema:write']);
  });
});
