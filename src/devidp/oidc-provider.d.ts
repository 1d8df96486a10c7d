// Minimal type declarations for the parts of oidc-provider v9 that the dev IdP uses.
//
// Why this file exists: oidc-provider ships no TypeScript types, and the community
// `@types/oidc-provider` package tracks v8 (whose configuration shape differs). Declaring only
// what src/devidp/ touches keeps `tsc --strict` meaningful without pulling in a mismatched
// package. If the project ever adds `@types/oidc-provider`, delete this file.
//
// The shapes follow the library source (lib/provider.js, lib/models/*.js,
// lib/helpers/defaults.js) of the version pinned in package.json.

declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export type UnknownObject = Record<string, unknown>;

  /** Storage adapter contract (oidc-provider docs: "adapter"). */
  export interface AdapterPayload {
    [key: string]: unknown;
    jti?: string;
    grantId?: string;
    uid?: string;
    userCode?: string;
    consumed?: number;
  }

  export interface Adapter {
    upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void>;
    find(id: string): Promise<AdapterPayload | undefined>;
    findByUid(uid: string): Promise<AdapterPayload | undefined>;
    findByUserCode(userCode: string): Promise<AdapterPayload | undefined>;
    consume(id: string): Promise<void>;
    destroy(id: string): Promise<void>;
    revokeByGrantId(grantId: string): Promise<void>;
  }

  export type AdapterFactory = (modelName: string) => Adapter;

  export interface ClientMetadata {
    client_id: string;
    client_secret?: string;
    redirect_uris?: string[];
    post_logout_redirect_uris?: string[];
    grant_types?: string[];
    response_types?: string[];
    token_endpoint_auth_method?: string;
    id_token_signed_response_alg?: string;
    [key: string]: unknown;
  }

  export interface Client {
    clientId: string;
    clientAuthMethod: string;
    redirectUris: string[];
    grantTypeAllowed(type: string): boolean;
  }

  export interface ResourceServerInfo {
    scope: string;
    audience?: string;
    accessTokenTTL?: number;
    accessTokenFormat?: 'opaque' | 'jwt';
    jwt?: { sign?: { alg?: string; kid?: string } };
  }

  export interface ResourceServer {
    readonly scopes: Set<string>;
    audience?: string;
    identifier(): string;
  }

  export interface Grant {
    jti: string;
    accountId: string;
    clientId: string;
    exp?: number;
    addOIDCScope(scope: string): void;
    addOIDCClaims(claims: string[]): void;
    addResourceScope(resource: string, scope: string): void;
    rejectResourceScope(resource: string, scope: string): void;
    getResourceScope(resource: string): string;
    save(ttl?: number): Promise<string>;
  }

  export interface GrantStatic {
    new (properties: { accountId: string; clientId: string }): Grant;
    find(id: string): Promise<Grant | undefined>;
  }

  export interface AccessToken {
    jti: string;
    accountId?: string;
    clientId: string;
    grantId?: string;
    scope?: string;
    aud?: string | string[];
    iat?: number;
    exp?: number;
    isValid: boolean;
  }

  export interface AccessTokenStatic {
    find(id: string): Promise<AccessToken | undefined>;
  }

  export interface Session {
    accountId?: string;
    /** The authentication methods of the session's sign-in (RFC 8176), as the interaction reported them. */
    amr?: string[];
    grantIdFor(clientId: string): string | undefined;
  }

  export interface Account {
    accountId: string;
    claims(use: string, scope: string, claims: UnknownObject, rejected: string[]): Promise<UnknownObject> | UnknownObject;
  }

  export interface PromptDetail {
    name: string;
    reasons: string[];
    details: {
      missingOIDCScope?: string[];
      missingOIDCClaims?: string[];
      missingResourceScopes?: Record<string, string[]>;
      [key: string]: unknown;
    };
  }

  export interface Interaction {
    uid: string;
    returnTo: string;
    prompt: PromptDetail;
    params: Record<string, string | undefined>;
    session?: { accountId?: string; uid?: string };
    grantId?: string;
    lastSubmission?: InteractionResults;
  }

  export interface InteractionResults {
    login?: { accountId: string; remember?: boolean; amr?: string[]; acr?: string };
    consent?: { grantId?: string };
    error?: string;
    error_description?: string;
    [key: string]: unknown;
  }

  export interface OIDCContext {
    readonly provider: Provider;
    readonly route: string;
    readonly client?: Client;
    readonly account?: Account;
    readonly session?: Session;
    readonly result?: InteractionResults;
    readonly resourceServers: Record<string, ResourceServer>;
    readonly requestParamScopes: Set<string>;
    readonly requestParamOIDCScopes: Set<string>;
    readonly requestParamClaims: Set<string>;
    /** The authorization request's parameters (e.g. `acr_values`, `max_age`). */
    readonly params?: Record<string, unknown>;
  }

  /** The Koa context oidc-provider passes to configuration helpers (subset). */
  export interface KoaContextWithOIDC {
    oidc: OIDCContext;
    host: string;
    type: string;
    body: unknown;
    status: number;
  }

  export interface ErrorOut {
    error: string;
    error_description?: string;
    [key: string]: unknown;
  }

  export type Configuration = Record<string, unknown>;

  /** lib/helpers/interaction_policy: the default prompts and their checks. */
  export namespace interactionPolicy {
    class Check {
      static readonly REQUEST_PROMPT: true;
      static readonly NO_NEED_TO_PROMPT: false;
      constructor(reason: string, description: string, check: (ctx: KoaContextWithOIDC) => boolean | Promise<boolean>);
    }
    interface Prompt {
      name: string;
      checks: Check[] & { add(check: Check, index?: number): void };
    }
    function base(): Prompt[] & { get(name: string): Prompt | undefined };
  }

  export class Provider {
    constructor(issuer: string, configuration?: Configuration);
    readonly issuer: string;
    readonly Grant: GrantStatic;
    readonly AccessToken: AccessTokenStatic;
    /** Koa's request listener; oidc-provider's Provider extends Koa. */
    callback(): (req: IncomingMessage, res: ServerResponse) => Promise<void>;
    on(event: string, listener: (...args: any[]) => void): this;
    urlFor(name: string, options?: UnknownObject): string;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<Interaction>;
    interactionResult(
      req: IncomingMessage,
      res: ServerResponse,
      result: InteractionResults,
      options?: { mergeWithLastSubmission?: boolean },
    ): Promise<string>;
  }

  export class OIDCProviderError extends Error {
    error: string;
    error_description?: string;
    status: number;
    statusCode: number;
  }

  export const errors: {
    InvalidTarget: new (description?: string) => OIDCProviderError;
    InvalidRequest: new (description?: string) => OIDCProviderError;
    SessionNotFound: new (description?: string) => OIDCProviderError;
  };

  export default Provider;
}
