import type { components } from '../../generated/gateway.ts';
import type { PlatformPageBrand } from '../domain/platformBrand.ts';

/**
 * The one error catalogue: every stable `code` the service answers with, its HTTP
 * status and title. The contract's ErrorCode enum lists the same codes; a drift
 * test keeps the two equal. Codes named by the spec keep their exact names.
 */
export const ERROR_CATALOGUE = {
  VALIDATION_FAILED: { status: 400, title: 'The request is not valid' },
  INVALID_REDIRECT: { status: 400, title: 'The redirect target is malformed' },
  IMAGE_INVALID: { status: 400, title: 'The image is not valid' },
  MALFORMED_REQUEST: { status: 400, title: 'The request could not be read' },
  HANDOFF_CHALLENGE_REQUIRED: { status: 400, title: 'The platform requires a handoff challenge' },
  STEP_UP_TOKEN_MISSING: { status: 400, title: 'The start lacks the step-up token its handoff challenge was issued with' },
  SESSION_COOKIE_AMBIGUOUS: { status: 400, title: 'The session cookie is sent more than once' },
  UNAUTHENTICATED: { status: 401, title: 'Authentication is required' },
  SESSION_EXPIRED: { status: 401, title: 'The session has expired' },
  INVALID_CLIENT_CREDENTIALS: { status: 401, title: 'The platform credentials are not valid' },
  IDP_ERROR: { status: 401, title: 'The identity provider refused the login' },
  IDP_CODE_EXCHANGE_FAILED: { status: 401, title: 'The authorization code could not be exchanged' },
  ID_TOKEN_INVALID: { status: 401, title: 'The ID token is not valid' },
  ACCESS_TOKEN_INVALID: { status: 401, title: 'The access token is not valid' },
  TOKEN_SUBJECT_MISMATCH: { status: 401, title: 'The access token and ID token subjects differ' },
  AUTHENTICATION_TOO_OLD: { status: 401, title: 'The sign-in is not as recent as the application asked' },
  SECOND_FACTOR_MISSING: { status: 401, title: 'The sign-in did not use a second factor' },
  FORBIDDEN: { status: 403, title: 'The caller lacks a required permission' },
  ACCOUNT_DELETED: { status: 403, title: 'The account was deleted' },
  LOGIN_BROWSER_MISMATCH: { status: 403, title: 'The sign-in was started in another browser' },
  STEP_UP_SUBJECT_MISMATCH: { status: 403, title: 'Another person signed in than the one asked to confirm' },
  ORIGIN_NOT_ALLOWED: { status: 403, title: 'The request origin is not allowed' },
  RETURN_TO_NOT_ALLOWED: { status: 403, title: 'The return address is not allowed for this platform' },
  ONBOARDING_MODE_MISMATCH: { status: 403, title: 'The onboarding mode does not match the platform' },
  AGREEMENT_RECORDING_NOT_ALLOWED: { status: 403, title: 'This platform may not record agreements for its people' },
  NOT_FOUND: { status: 404, title: 'Not found' },
  PLATFORM_NOT_FOUND: { status: 404, title: 'The platform does not exist or is inactive' },
  TRANSACTION_NOT_FOUND: { status: 404, title: 'The login transaction is unknown, expired or already used' },
  HANDOFF_CODE_INVALID: { status: 404, title: 'The handoff code is invalid, expired or already used' },
  SESSION_NOT_FOUND: { status: 404, title: 'The session does not exist' },
  UPLOAD_TICKET_INVALID: { status: 404, title: 'The upload ticket is invalid, expired or already used' },
  FIELD_NOT_FOUND: { status: 404, title: 'The onboarding field does not exist' },
  DOCUMENT_NOT_FOUND: { status: 404, title: 'The document or document version does not exist' },
  DATA_EXPORT_NOT_FOUND: { status: 404, title: 'The data export does not exist' },
  DATA_EXPORT_LINK_INVALID: { status: 404, title: 'The download link is invalid, expired or already used' },
  SUPPORT_ACCESS_NOT_ALLOWED: { status: 403, title: 'Support access to this platform is not allowed' },
  APPROVAL_REQUIRED: { status: 403, title: 'The person has not approved this support access yet' },
  SUPPORT_SESSION_FORBIDDEN: { status: 403, title: 'A support session cannot do this' },
  PERSON_NOT_FOUND: { status: 404, title: 'No such person' },
  SUPPORT_ACCESS_NOT_FOUND: { status: 404, title: 'The support access does not exist' },
  SUPPORT_ACCESS_EXPIRED: { status: 409, title: 'The support access has expired' },
  SUPPORT_ACCESS_ENDED: { status: 409, title: 'The support access is refused, ended or already used' },
  METHOD_NOT_ALLOWED: { status: 405, title: 'The method is not allowed on this resource' },
  CONFLICT: { status: 409, title: 'The request conflicts with the current state' },
  CENTRAL_ONBOARDING_DISABLED: { status: 409, title: 'Central onboarding is disabled for this platform' },
  PLATFORM_CALLBACK_NOT_CONFIGURED: { status: 409, title: 'The platform has no callback URL' },
  PLATFORM_MISSING_CALLBACK_URL: { status: 409, title: 'The platform cannot be activated without a callback URL' },
  PLATFORM_MISSING_RETURN_URLS: { status: 409, title: 'The platform cannot be activated without an allowed return URL' },
  PLATFORM_MISSING_CREDENTIALS: { status: 409, title: 'The platform cannot be activated without credentials' },
  DATA_EXPORT_NOT_READY: { status: 409, title: 'The data export is not ready' },
  PAYLOAD_TOO_LARGE: { status: 413, title: 'The request body is too large' },
  RATE_LIMITED: { status: 429, title: 'Too many attempts' },
  TOO_MANY_SUPPORT_REQUESTS: { status: 429, title: 'Too many support access requests to this person' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, title: 'The request body has an unsupported media type' },
  INTERNAL_ERROR: { status: 500, title: 'Internal error' },
  NOT_IMPLEMENTED: { status: 501, title: 'Not implemented yet' },
  OIDC_NOT_CONFIGURED: { status: 503, title: 'The OpenID Connect client is not configured' },
  IDP_UNAVAILABLE: { status: 503, title: 'The identity provider is unavailable' },
  DATABASE_UNAVAILABLE: { status: 503, title: 'The database is unavailable' },
  STORAGE_UNAVAILABLE: { status: 503, title: 'The picture store is unavailable' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

export type FieldErrorReason = components['schemas']['FieldErrorReason'];

export interface FieldError {
  /** JSON pointer (RFC 6901) to the offending input, e.g. `/query/returnTo` or `/body/code`. */
  pointer: string;
  /** For people. */
  message: string;
  /** Stable, for clients (onboarding values and profile properties). */
  reason?: FieldErrorReason;
}

/**
 * What a way forward says, as a message key of src/web/messages/<language>/errors.json
 * (`errors.next.<key>`): the page words it in its own language, never by matching English.
 */
export type NextStepLabel = { key: 'startAgain' } | { key: 'tryAgain' } | { key: 'backToApplication' } | { key: 'backTo'; platform: string };

/** A heading an error page takes for a case whose code's own words would not fit it (`errors.<key>.title` and `.detail`). */
export type PageTitleKey = 'signedOut';

/** A link an error page offers: "Start again", "Back to <platform>". */
export interface NextStep {
  label: NextStepLabel;
  href: URL;
  /** The platform the way leads back to: the page shows its name, logo and colour (issue 27). */
  brand?: PlatformPageBrand;
}

/** An expected, client-facing failure. Anything else thrown becomes a 500 INTERNAL_ERROR. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly detail: string | undefined;
  readonly errors: readonly FieldError[] | undefined;
  readonly headers: Readonly<Record<string, string>> | undefined;
  /** The way forward an HTML error page offers (a link with this label), when there is one. */
  readonly nextStep: NextStep | undefined;
  /** The heading (and words) of the HTML error page when the code's own would not fit this case. */
  readonly pageTitle: PageTitleKey | undefined;

  constructor(
    code: ErrorCode,
    detail?: string,
    extra: { errors?: readonly FieldError[]; headers?: Readonly<Record<string, string>>; cause?: unknown; nextStep?: NextStep; pageTitle?: PageTitleKey } = {},
  ) {
    super(detail ?? ERROR_CATALOGUE[code].title, { cause: extra.cause });
    this.name = 'ApiError';
    this.code = code;
    this.status = ERROR_CATALOGUE[code].status;
    this.detail = detail;
    this.errors = extra.errors;
    this.headers = extra.headers;
    this.nextStep = extra.nextStep;
    this.pageTitle = extra.pageTitle;
  }
}

export function validationError(errors: FieldError[], detail = 'One or more fields are invalid.'): ApiError {
  return new ApiError('VALIDATION_FAILED', detail, { errors });
}

/** 401 for the platform Basic scheme, with the challenge RFC 7235 §3.1 requires. */
export function invalidClientCredentials(detail = 'Send the platform client id and secret with HTTP Basic authentication.'): ApiError {
  return new ApiError('INVALID_CLIENT_CREDENTIALS', detail, { headers: { 'WWW-Authenticate': 'Basic realm="auth-gateway"' } });
}
