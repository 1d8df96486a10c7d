// The Zitadel adapter of the identity-provider port, on Zitadel's v2 user service
// (`zitadel.user.v2.UserService`, research/zitadel-api.md §1, §1a-c) through Zitadel's own client
// and definitions (zitadelClient.ts). The user is the token's `sub`, which is Zitadel's user id (§3).
//
// Zitadel's errors carry a gRPC/Connect code and a detail `zitadel.v1.ErrorDetail{id, message}`
// (`CredentialsCheckError` for failed credential checks) whose message is translated. Errors are
// told apart by the code and the detail id only, never by the text (§8.4). Over Connect the codes
// travel as such; the HTTP statuses of the former REST mapping are given for reference.
//
// | Zitadel answer (code, detail id)                                      | gateway problem                          |
// |-----------------------------------------------------------------------|------------------------------------------|
// | SetPassword: INVALID_ARGUMENT `COMMAND-3M0fs` (password invalid)      | 403 FORBIDDEN (the gateway never sends it empty) |
// | SetPassword: FAILED_PRECONDITION `COMMAND-Fds3s` / `COMMAND-M9dse` (no password, not initialised) | 403 FORBIDDEN |
// | SetPassword: INVALID_ARGUMENT `DOMAIN-*` (complexity policy), FAILED_PRECONDITION `COMMAND-Aesh5` (same as current) | 400 VALIDATION_FAILED at /body/newPassword, Zitadel's message |
// | list calls, SetPassword: NOT_FOUND with a detail id (user not found)  | 404 NOT_FOUND                            |
// | DeactivateUser: FAILED_PRECONDITION `COMMAND-5gunjw0cd7` (already inactive), NOT_FOUND with an id | done (idempotent) |
// | DeactivateUser: FAILED_PRECONDITION `COMMAND-gvx4kct9r2` (state initial) | the user is deleted instead (it never signed in) |
// | DeleteUser: NOT_FOUND with a detail id                                | done (idempotent)                        |
// | UNAUTHENTICATED (401), PERMISSION_DENIED (403): the gateway's own credentials or role; a token endpoint refusal | 503 IDP_UNAVAILABLE, error log |
// | UNIMPLEMENTED (an HTTP 404/501: no such route, wrong IDP_ADMIN_API_URL or a Zitadel without the Connect API), INVALID_ARGUMENT without a detail id (a request Zitadel's definitions refuse), any other code | 503 IDP_UNAVAILABLE, error log |
// | INTERNAL, UNKNOWN, UNAVAILABLE (also 429/502/503/504 from a proxy), RESOURCE_EXHAUSTED, DEADLINE_EXCEEDED; an unusable answer, unreachable, timeout, answer too large | 503 IDP_UNAVAILABLE, warn log |

import type { Logger } from 'pino';
import { Code } from '@connectrpc/connect';
import { AuthenticationMethodType } from '@zitadel/proto/zitadel/user/v2/user_service_pb.js';
import { AuthFactorState } from '@zitadel/proto/zitadel/user/v2/user_pb.js';

import { ApiError } from '../../errors/catalogue.ts';
import type { AuthenticationMethod, IdentityProviderAccounts } from './port.ts';
import { DEFAULT_HTTP_LIMITS, ProviderUnreachable, type HttpLimits } from './http.ts';
import { AdminCredentialRefused, type AdminCredential } from './zitadelAuth.ts';
import { createZitadelApi, ZitadelRefusal, type CallOptions, type UserServiceClient } from './zitadelClient.ts';

export interface ZitadelAccountsOptions {
  /** Base URL of Zitadel's API (IDP_ADMIN_API_URL, default OIDC_ISSUER). */
  apiUrl: string;
  credential: AdminCredential;
  logger: Logger;
  limits?: Partial<HttpLimits>;
}

type Operation = 'listAuthenticationMethods' | 'changePassword' | 'deactivateUser' | 'deleteUser';

const PASSWORD_WRONG = 'COMMAND-3M0fs';
const PASSWORD_SAME_AS_CURRENT = 'COMMAND-Aesh5';
const PASSWORD_NOT_SET = 'COMMAND-Fds3s';
const USER_NOT_INITIALISED = 'COMMAND-M9dse';
const USER_ALREADY_INACTIVE = 'COMMAND-5gunjw0cd7';
const USER_INITIAL_CANNOT_DEACTIVATE = 'COMMAND-gvx4kct9r2';
/** Zitadel's limit on both passwords (SetPasswordRequest's validate rules: 1..200 characters). */
const ZITADEL_PASSWORD_MAX = 200;

const PROVIDER_UNAVAILABLE = 'The identity provider could not be reached. Try again later.';

/** Zitadel's single-instance second factors, and the contract's type for each. */
const FACTOR_TYPES = new Set([AuthenticationMethodType.TOTP, AuthenticationMethodType.OTP_SMS, AuthenticationMethodType.OTP_EMAIL, AuthenticationMethodType.U2F]);
/** The codes the former REST mapping answered with HTTP 400 (grpc-gateway HTTPStatusFromCode). */
const BAD_REQUEST = new Set([Code.InvalidArgument, Code.FailedPrecondition]);
/** The provider failing, as opposed to refusing what the gateway sent. */
const PROVIDER_FAILURE = new Set([Code.Internal, Code.Unknown, Code.Unavailable, Code.ResourceExhausted, Code.DeadlineExceeded, Code.DataLoss, Code.Aborted]);

export function createZitadelAccounts(options: ZitadelAccountsOptions): IdentityProviderAccounts {
  const limits: HttpLimits = { ...DEFAULT_HTTP_LIMITS, ...options.limits };
  const log = options.logger.child({ component: 'idp-accounts', provider: 'zitadel' });
  const api = createZitadelApi({ apiUrl: options.apiUrl, credential: options.credential, limits });

  /** One call; its ZitadelRefusal is handed back for the operation to map, every other failure is a 503. */
  async function call<T>(operation: Operation, work: (client: UserServiceClient, options: CallOptions) => Promise<T>): Promise<T | ZitadelRefusal> {
    try {
      return await api.call(work);
    } catch (error) {
      if (error instanceof ZitadelRefusal) return error;
      throw unavailable(operation, error);
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
  function unexpected(operation: Operation, refusal: ZitadelRefusal): ApiError {
    const facts = { operation, code: Code[refusal.code], errorId: refusal.id };
    if (refusal.code === Code.Unauthenticated || refusal.code === Code.PermissionDenied) {
      log.error(facts, `the identity provider refused the gateway's own credentials (${options.credential.kind === 'pat' ? 'IDP_ADMIN_TOKEN' : 'IDP_ADMIN_KEY_FILE'}): check the service user and its ORG_USER_MANAGER role`);
    } else if (PROVIDER_FAILURE.has(refusal.code)) {
      log.warn(facts, 'the identity provider failed');
    } else if (refusal.code === Code.Unimplemented) {
      log.error(facts, "the identity provider has no such API call: check IDP_ADMIN_API_URL and that Zitadel serves its v2 user service over the Connect protocol");
    } else {
      log.error(facts, 'the identity provider gave an answer the gateway does not expect');
    }
    return new ApiError('IDP_UNAVAILABLE', PROVIDER_UNAVAILABLE);
  }

  /** NOT_FOUND that names an error id: the user does not exist (or no longer) at the provider. */
  const userNotFound = (refusal: ZitadelRefusal) => refusal.code === Code.NotFound && refusal.id !== undefined;
  const notFound = () => new ApiError('NOT_FOUND', 'The account does not exist at the identity provider.');

  /** A list call of listAuthenticationMethods: its answer, or the right error. */
  async function list<T>(work: (client: UserServiceClient, options: CallOptions) => Promise<T>): Promise<T> {
    const answer = await call('listAuthenticationMethods', work);
    if (!(answer instanceof ZitadelRefusal)) return answer;
    if (userNotFound(answer)) throw notFound();
    throw unexpected('listAuthenticationMethods', answer);
  }

  async function deleteUser(userId: string): Promise<void> {
    const answer = await call('deleteUser', (client, o) => client.deleteUser({ userId }, o));
    if (!(answer instanceof ZitadelRefusal) || userNotFound(answer)) return;
    throw unexpected('deleteUser', answer);
  }

  return {
    async listAuthenticationMethods(userId) {
      const { authMethodTypes } = await list((client, o) => client.listAuthenticationMethodTypes({ userId }, o));
      const types = new Set(authMethodTypes);

      const [passkeys, links, factors] = await Promise.all([
        types.has(AuthenticationMethodType.PASSKEY) ? list((client, o) => client.listPasskeys({ userId }, o)).then((a) => a.result) : [],
        types.has(AuthenticationMethodType.IDP) ? list((client, o) => client.listIDPLinks({ userId, query: { limit: 100 } }, o)).then((a) => a.result) : [],
        // No filter: Zitadel's defaults are every factor type (TOTP, U2F, OTP SMS, OTP e-mail) in state READY.
        [...types].some((t) => FACTOR_TYPES.has(t)) ? list((client, o) => client.listAuthenticationFactors({ userId }, o)).then((a) => a.result) : [],
      ]);

      const methods: AuthenticationMethod[] = [];
      if (types.has(AuthenticationMethodType.PASSWORD)) methods.push(method('password', 'password'));
      for (const passkey of passkeys) {
        if (passkey.state === AuthFactorState.READY && passkey.id !== '') methods.push(method(passkey.id, 'passkey', passkey.name));
      }
      const ready = factors.filter((factor) => factor.state === AuthFactorState.READY);
      if (ready.some((factor) => factor.type.case === 'otp')) methods.push(method('totp', 'totp'));
      if (ready.some((factor) => factor.type.case === 'otpSms')) methods.push(method('otp_sms', 'otp_sms'));
      if (ready.some((factor) => factor.type.case === 'otpEmail')) methods.push(method('otp_email', 'otp_email'));
      // A security key registered as a second factor (WebAuthn U2F) is a WebAuthn credential too:
      // the contract has no type of its own for it, so it is listed as a passkey with its name.
      for (const factor of ready) {
        if (factor.type.case === 'u2f' && factor.type.value.id !== '') methods.push(method(factor.type.value.id, 'passkey', factor.type.value.name));
      }
      for (const link of links) {
        if (link.idpId === '' || link.userId === '') continue;
        // Zitadel removes a link by identity provider and the user's id there: both make the id.
        methods.push(method(`${link.idpId}:${link.userId}`, 'idp_link', link.userName));
      }
      return methods;
    },

    async changePassword(userId, input) {
      // Zitadel takes 1..200 characters: a longer current password cannot be the right one, and a
      // longer new one is refused here with the same pointer the provider's policy would get.
      if ([...input.newPassword].length > ZITADEL_PASSWORD_MAX) {
        throw policyRefusal(`Password is too long: use at most ${ZITADEL_PASSWORD_MAX} characters.`);
      }
      if ([...input.currentPassword].length > ZITADEL_PASSWORD_MAX) throw wrongPassword();
      const answer = await call('changePassword', (client, o) => client.setPassword({
        userId,
        newPassword: { password: input.newPassword, changeRequired: false },
        verification: { case: 'currentPassword', value: input.currentPassword },
      }, o));
      if (!(answer instanceof ZitadelRefusal)) return;
      const id = answer.id;
      if (BAD_REQUEST.has(answer.code) && id !== undefined) {
        if (id === PASSWORD_WRONG) throw wrongPassword();
        if (id === PASSWORD_NOT_SET) throw new ApiError('FORBIDDEN', 'The account has no password to change; set one at the identity provider.');
        if (id === USER_NOT_INITIALISED) throw new ApiError('FORBIDDEN', 'The account is not yet initialised at the identity provider.');
        if (id === PASSWORD_SAME_AS_CURRENT || id.startsWith('DOMAIN-')) {
          throw policyRefusal(answer.detailMessage ?? 'The identity provider refused the new password.');
        }
      }
      if (userNotFound(answer)) throw notFound();
      throw unexpected('changePassword', answer);
    },

    async deactivateUser(userId) {
      const answer = await call('deactivateUser', (client, o) => client.deactivateUser({ userId }, o));
      if (!(answer instanceof ZitadelRefusal) || userNotFound(answer)) return;
      if (BAD_REQUEST.has(answer.code) && answer.id === USER_ALREADY_INACTIVE) return;
      if (BAD_REQUEST.has(answer.code) && answer.id === USER_INITIAL_CANNOT_DEACTIVATE) {
        // Zitadel deletes, never deactivates, a user that was never initialised.
        log.info({ operation: 'deactivateUser' }, 'the user was never initialised at the identity provider: deleting it instead');
        await deleteUser(userId);
        return;
      }
      throw unexpected('deactivateUser', answer);
    },

    deleteUser,
  };
}

function method(id: string, type: AuthenticationMethod['type'], name?: string): AuthenticationMethod {
  // Zitadel keeps no creation or last-use times for these methods.
  return { id, type, displayName: name ? name : null, createdAt: null, lastUsedAt: null };
}

function wrongPassword(): ApiError {
  return new ApiError('FORBIDDEN', 'The current password is not correct.');
}

function policyRefusal(message: string): ApiError {
  return new ApiError('VALIDATION_FAILED', 'The identity provider refused the new password.', {
    errors: [{ pointer: '/body/newPassword', message }],
  });
}
