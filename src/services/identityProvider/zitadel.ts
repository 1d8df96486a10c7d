// The Zitadel adapter of the identity-provider port, on Zitadel's v2 user API (research/zitadel-api.md
// §0, §1, §1a-c). The user is the token's `sub`, which is Zitadel's user id (§3).
//
// Zitadel's answers (grpc-gateway): lowerCamelCase JSON, empty lists and zero values omitted,
// int64 as strings, errors as `{code, message, details:[{id, message}]}` with the gRPC code mapped
// to an HTTP status and the message translated. Errors are told apart by the HTTP status and
// `details[0].id` only, never by the text (§8.4).
//
// | Zitadel answer                                             | gateway problem                                   |
// |------------------------------------------------------------|---------------------------------------------------|
// | change: 400 `COMMAND-3M0fs` (password invalid)             | 403 FORBIDDEN (the gateway never sends it empty)  |
// | change: 400 `COMMAND-Fds3s` / `COMMAND-M9dse` (no password, not initialised) | 403 FORBIDDEN                   |
// | change: 400 `DOMAIN-*` (complexity policy), `COMMAND-Aesh5` (same as current) | 400 VALIDATION_FAILED at /body/newPassword, Zitadel's message |
// | list, change: 404 with a detail id (user not found)        | 404 NOT_FOUND                                     |
// | deactivate: 400 `COMMAND-5gunjw0cd7` (already inactive), 404 with an id | done (idempotent)                     |
// | deactivate: 400 `COMMAND-gvx4kct9r2` (state initial)      | the user is deleted instead (it never signed in)  |
// | delete: 404 with a detail id                               | done (idempotent)                                 |
// | 401, 403 (the gateway's own credentials or role), a token endpoint refusal | 503 IDP_UNAVAILABLE, error log     |
// | 404 without a detail id (no such route: wrong IDP_ADMIN_API_URL), any other 4xx | 503 IDP_UNAVAILABLE, error log |
// | 5xx, 429, not JSON, unreachable, timeout, answer too large | 503 IDP_UNAVAILABLE, warn log                     |

import type { Logger } from 'pino';

import { ApiError } from '../../errors/catalogue.ts';
import type { AuthenticationMethod, IdentityProviderAccounts } from './port.ts';
import { DEFAULT_HTTP_LIMITS, ProviderUnreachable, sendRequest, type HttpLimits } from './http.ts';
import { AdminCredentialRefused, type AdminCredential } from './zitadelAuth.ts';

export interface ZitadelAccountsOptions {
  /** Base URL of Zitadel's API (IDP_ADMIN_API_URL, default OIDC_ISSUER). */
  apiUrl: string;
  credential: AdminCredential;
  logger: Logger;
  limits?: Partial<HttpLimits>;
}

/** A Zitadel error body, read defensively. */
interface ZitadelError {
  /** gRPC code */
  code: number | undefined;
  /** `details[0].id`, e.g. COMMAND-3M0fs; undefined for route-level errors. */
  id: string | undefined;
  /** The translated message of the detail (without the ` (ID)` suffix), for people. */
  message: string | undefined;
}

interface Answer {
  status: number;
  json: unknown;
  error: ZitadelError | undefined;
}

type Operation = 'listAuthenticationMethods' | 'changePassword' | 'deactivateUser' | 'deleteUser';

const PASSWORD_WRONG = 'COMMAND-3M0fs';
const PASSWORD_SAME_AS_CURRENT = 'COMMAND-Aesh5';
const PASSWORD_NOT_SET = 'COMMAND-Fds3s';
const USER_NOT_INITIALISED = 'COMMAND-M9dse';
const USER_ALREADY_INACTIVE = 'COMMAND-5gunjw0cd7';
const USER_INITIAL_CANNOT_DEACTIVATE = 'COMMAND-gvx4kct9r2';
/** Zitadel's limit on both passwords (SetPasswordRequest: 1..200 characters). */
const ZITADEL_PASSWORD_MAX = 200;

const PROVIDER_UNAVAILABLE = 'The identity provider could not be reached. Try again later.';

/** Zitadel's AuthenticationMethodType names for the single-instance methods, and the contract's type. */
const SINGLE_METHODS = {
  AUTHENTICATION_METHOD_TYPE_TOTP: 'totp',
  AUTHENTICATION_METHOD_TYPE_OTP_SMS: 'otp_sms',
  AUTHENTICATION_METHOD_TYPE_OTP_EMAIL: 'otp_email',
} as const;
const FACTOR_TYPES = new Set(['AUTHENTICATION_METHOD_TYPE_TOTP', 'AUTHENTICATION_METHOD_TYPE_OTP_SMS', 'AUTHENTICATION_METHOD_TYPE_OTP_EMAIL', 'AUTHENTICATION_METHOD_TYPE_U2F']);
const READY = 'AUTH_FACTOR_STATE_READY';

export function createZitadelAccounts(options: ZitadelAccountsOptions): IdentityProviderAccounts {
  const base = options.apiUrl.replace(/\/+$/, '');
  const limits: HttpLimits = { ...DEFAULT_HTTP_LIMITS, ...options.limits };
  const log = options.logger.child({ component: 'idp-accounts', provider: 'zitadel' });
  const userPath = (sub: string, suffix = '') => `/v2/users/${encodeURIComponent(sub)}${suffix}`;

  /** One API call; a cached JWT-profile token the API refuses is renewed once. Never logs a body. */
  async function call(operation: Operation, method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<Answer> {
    for (let attempt = 0; ; attempt++) {
      let authorization: string;
      try {
        authorization = await options.credential.authorization();
      } catch (error) {
        throw unavailable(operation, error);
      }
      let answer;
      try {
        answer = await sendRequest({
          method,
          url: new URL(`${base}${path}`),
          headers: {
            Authorization: authorization,
            Accept: 'application/json',
            // Zitadel translates messages; the gateway passes policy messages on, in English.
            'Accept-Language': 'en',
            ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
          },
          ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        }, limits);
      } catch (error) {
        throw unavailable(operation, error);
      }
      if (answer.status === 401 && attempt === 0 && options.credential.invalidate()) continue;
      return { ...answer, error: answer.status >= 400 ? readError(answer.json) : undefined };
    }
  }

  /** 503 IDP_UNAVAILABLE for a failure of the provider or of the gateway's own configuration, logged by kind. */
  function unavailable(operation: Operation, cause: unknown): ApiError {
    if (cause instanceof ProviderUnreachable) {
      log.warn({ operation, reason: cause.reason, systemCode: cause.systemCode }, 'the identity provider could not be reached');
    } else if (cause instanceof AdminCredentialRefused) {
      log.error({ operation, status: cause.status, oauthError: cause.oauthError },
        `the gateway could not obtain an access token for the identity provider's API: ${cause.message} (check IDP_ADMIN_KEY_FILE and the service user)`);
    } else {
      log.error({ operation, err: cause }, 'the identity provider call failed');
    }
    return new ApiError('IDP_UNAVAILABLE', PROVIDER_UNAVAILABLE);
  }

  /** Whatever the operation did not expect: the provider's failure, or a misconfiguration of the gateway. */
  function unexpected(operation: Operation, answer: Answer): ApiError {
    const facts = { operation, status: answer.status, zitadelCode: answer.error?.code, errorId: answer.error?.id };
    if (answer.status === 401 || answer.status === 403) {
      log.error(facts, `the identity provider refused the gateway's own credentials (${options.credential.kind === 'pat' ? 'IDP_ADMIN_TOKEN' : 'IDP_ADMIN_KEY_FILE'}): check the service user and its ORG_USER_MANAGER role`);
    } else if (answer.status >= 500 || answer.status === 429) {
      log.warn(facts, 'the identity provider failed');
    } else if (answer.status === 404 && !answer.error?.id) {
      log.error(facts, 'the identity provider has no such API route: check IDP_ADMIN_API_URL');
    } else {
      log.error(facts, 'the identity provider gave an answer the gateway does not expect');
    }
    return new ApiError('IDP_UNAVAILABLE', PROVIDER_UNAVAILABLE);
  }

  /** A 404 that names an error id: the user does not exist (or no longer) at the provider. */
  const userNotFound = (answer: Answer) => answer.status === 404 && Boolean(answer.error?.id);
  const notFound = () => new ApiError('NOT_FOUND', 'The account does not exist at the identity provider.');

  async function search(sub: string, suffix: string, body: unknown): Promise<unknown[]> {
    const answer = await call('listAuthenticationMethods', 'POST', userPath(sub, suffix), body);
    if (answer.status === 200) return listOf((answer.json as { result?: unknown } | undefined)?.result);
    if (userNotFound(answer)) throw notFound();
    throw unexpected('listAuthenticationMethods', answer);
  }

  async function deleteUser(sub: string): Promise<void> {
    const answer = await call('deleteUser', 'DELETE', userPath(sub));
    if (answer.status === 200 || userNotFound(answer)) return;
    throw unexpected('deleteUser', answer);
  }

  return {
    async listAuthenticationMethods(sub) {
      const answer = await call('listAuthenticationMethods', 'GET', userPath(sub, '/authentication_methods'));
      if (userNotFound(answer)) throw notFound();
      if (answer.status !== 200) throw unexpected('listAuthenticationMethods', answer);
      const types = new Set(listOf((answer.json as { authMethodTypes?: unknown } | undefined)?.authMethodTypes).filter((t): t is string => typeof t === 'string'));

      const [passkeys, links, factors] = await Promise.all([
        types.has('AUTHENTICATION_METHOD_TYPE_PASSKEY') ? search(sub, '/passkeys/_search', {}) : [],
        types.has('AUTHENTICATION_METHOD_TYPE_IDP') ? search(sub, '/links/_search', { query: { limit: 100 } }) : [],
        // No filter: Zitadel's defaults are every factor type (TOTP, U2F, OTP SMS, OTP e-mail) in state READY.
        [...types].some((t) => FACTOR_TYPES.has(t)) ? search(sub, '/authentication_factors/_search', undefined) : [],
      ]);

      const methods: AuthenticationMethod[] = [];
      if (types.has('AUTHENTICATION_METHOD_TYPE_PASSWORD')) methods.push(method('password', 'password'));
      for (const entry of passkeys as Array<Record<string, unknown>>) {
        if (entry?.state !== READY || typeof entry.id !== 'string') continue;
        methods.push(method(entry.id, 'passkey', entry.name));
      }
      const factorEntries = factors as Array<Record<string, unknown>>;
      const ready = factorEntries.filter((entry) => entry?.state === READY);
      if (ready.some((entry) => entry.otp !== undefined)) methods.push(method('totp', SINGLE_METHODS.AUTHENTICATION_METHOD_TYPE_TOTP));
      if (ready.some((entry) => entry.otpSms !== undefined)) methods.push(method('otp_sms', SINGLE_METHODS.AUTHENTICATION_METHOD_TYPE_OTP_SMS));
      if (ready.some((entry) => entry.otpEmail !== undefined)) methods.push(method('otp_email', SINGLE_METHODS.AUTHENTICATION_METHOD_TYPE_OTP_EMAIL));
      // A security key registered as a second factor (WebAuthn U2F) is a WebAuthn credential too:
      // the contract has no type of its own for it, so it is listed as a passkey with its name.
      for (const entry of ready) {
        const u2f = entry.u2f as { id?: unknown; name?: unknown } | undefined;
        if (u2f && typeof u2f.id === 'string') methods.push(method(u2f.id, 'passkey', u2f.name));
      }
      for (const entry of links as Array<Record<string, unknown>>) {
        if (typeof entry?.idpId !== 'string' || typeof entry.userId !== 'string') continue;
        // Zitadel removes a link by identity provider and the user's id there: both make the id.
        methods.push(method(`${entry.idpId}:${entry.userId}`, 'idp_link', entry.userName));
      }
      return methods;
    },

    async changePassword(sub, input) {
      // Zitadel takes 1..200 characters: a longer current password cannot be the right one, and a
      // longer new one is refused here with the same pointer the provider's policy would get.
      if ([...input.newPassword].length > ZITADEL_PASSWORD_MAX) {
        throw policyRefusal(`Password is too long: use at most ${ZITADEL_PASSWORD_MAX} characters.`);
      }
      if ([...input.currentPassword].length > ZITADEL_PASSWORD_MAX) throw wrongPassword();
      const answer = await call('changePassword', 'POST', userPath(sub, '/password'), {
        newPassword: { password: input.newPassword, changeRequired: false },
        currentPassword: input.currentPassword,
      });
      if (answer.status === 200) return;
      const id = answer.error?.id;
      if (answer.status === 400 && id !== undefined) {
        if (id === PASSWORD_WRONG) throw wrongPassword();
        if (id === PASSWORD_NOT_SET) throw new ApiError('FORBIDDEN', 'The account has no password to change; set one at the identity provider.');
        if (id === USER_NOT_INITIALISED) throw new ApiError('FORBIDDEN', 'The account is not yet initialised at the identity provider.');
        if (id === PASSWORD_SAME_AS_CURRENT || id.startsWith('DOMAIN-')) {
          throw policyRefusal(answer.error?.message ?? 'The identity provider refused the new password.');
        }
      }
      if (userNotFound(answer)) throw notFound();
      throw unexpected('changePassword', answer);
    },

    async deactivateUser(sub) {
      const answer = await call('deactivateUser', 'POST', userPath(sub, '/deactivate'), {});
      if (answer.status === 200 || userNotFound(answer)) return;
      if (answer.status === 400 && answer.error?.id === USER_ALREADY_INACTIVE) return;
      if (answer.status === 400 && answer.error?.id === USER_INITIAL_CANNOT_DEACTIVATE) {
        // Zitadel deletes, never deactivates, a user that was never initialised.
        log.info({ operation: 'deactivateUser' }, 'the user was never initialised at the identity provider: deleting it instead');
        await deleteUser(sub);
        return;
      }
      throw unexpected('deactivateUser', answer);
    },

    deleteUser,
  };
}

function method(id: string, type: AuthenticationMethod['type'], name?: unknown): AuthenticationMethod {
  // Zitadel keeps no creation or last-use times for these methods.
  return { id, type, displayName: typeof name === 'string' && name !== '' ? name : null, createdAt: null, lastUsedAt: null };
}

/** Zitadel omits empty lists: a missing list is an empty one. */
function listOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function readError(json: unknown): ZitadelError | undefined {
  if (!json || typeof json !== 'object') return undefined;
  const body = json as { code?: unknown; message?: unknown; details?: unknown };
  const detail = (Array.isArray(body.details) ? body.details[0] : undefined) as { id?: unknown; message?: unknown } | undefined;
  const topMessage = typeof body.message === 'string' ? body.message.replace(/\s*\([A-Za-z]+-[A-Za-z0-9]+\)\s*$/, '') : undefined;
  return {
    code: typeof body.code === 'number' ? body.code : undefined,
    id: typeof detail?.id === 'string' && detail.id !== '' ? detail.id : undefined,
    message: typeof detail?.message === 'string' && detail.message !== '' ? detail.message : topMessage,
  };
}

function wrongPassword(): ApiError {
  return new ApiError('FORBIDDEN', 'The current password is not correct.');
}

function policyRefusal(message: string): ApiError {
  return new ApiError('VALIDATION_FAILED', 'The identity provider refused the new password.', {
    errors: [{ pointer: '/body/newPassword', message }],
  });
}
