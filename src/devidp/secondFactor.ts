// The dev identity provider's second factor: a one-time code (TOTP, totp.ts) from a secret seeded
// per demo user, asked for when a client sends `acr_values` naming the multi-factor policy (the
// gateway does when a platform asks for a second factor and discovery lists it). A sign-in with
// it reports `amr` ["pwd", "otp", "mfa"] (RFC 8176 §2, as Zitadel reports a password and a
// TOTP) and that `acr`; without it, ["pwd"].
//
// The seeded secrets are published development data, like the seed passwords: `npm start` prints
// them as otpauth:// URIs for an authenticator app.

import { interactionPolicy, type KoaContextWithOIDC } from 'oidc-provider';

import { base32Decode, verifyTotp } from './totp.ts';

/**
 * The OpenID Provider Authentication Policy Extension's multi-factor policy: the one `acr` the dev
 * provider lists in `acr_values_supported` (the gateway's OIDC_SECOND_FACTOR_ACR default).
 */
export const MULTI_FACTOR_ACR = 'http://schemas.openid.net/pape/policies/2007/06/multi-factor';

/** Seeded TOTP secrets (base32) by subject: published dev data, like the seed passwords. */
export const DEV_TOTP_SECRETS: Readonly<Record<string, string>> = Object.freeze({
  'dev-user-alice': 'JBSWY3DPEHPK3PXPALICEDEVSTACK234',
  'dev-user-admin': 'KRUGKIDBMRWWS3RAMRSXMIDTORQWG2ZA',
});

/** What a sign-in reports (RFC 8176 §2 values). */
export function signInAmr(withSecondFactor: boolean): { amr: string[]; acr?: string } {
  return withSecondFactor ? { amr: ['pwd', 'otp', 'mfa'], acr: MULTI_FACTOR_ACR } : { amr: ['pwd'] };
}

/** The authorization request asks for a second factor (OIDC Core §3.1.2.1 `acr_values`, space separated). */
export function asksSecondFactor(acrValues: unknown): boolean {
  return typeof acrValues === 'string' && acrValues.split(' ').includes(MULTI_FACTOR_ACR);
}

export type SecondFactorCheck = 'ok' | 'invalid' | 'not_enrolled';

/** The code typed for this subject, against its seeded secret. */
export function checkSecondFactor(secrets: Readonly<Record<string, string>>, sub: string, code: string): SecondFactorCheck {
  const secret = secrets[sub];
  if (!secret) return 'not_enrolled';
  return verifyTotp(base32Decode(secret), code.replace(/\s/g, '')) ? 'ok' : 'invalid';
}

/**
 * A login-prompt check: a request for a second factor meets a provider session signed in without
 * one, so the person signs in again (with the code). oidc-provider would otherwise go on with the
 * session, since `acr_values` are voluntary (only an essential `acr` claim prompts by itself).
 */
export function secondFactorCheck(): InstanceType<typeof interactionPolicy.Check> {
  return new interactionPolicy.Check(
    'second_factor',
    'a second factor is required',
    (ctx: KoaContextWithOIDC) => {
      if (!asksSecondFactor(ctx.oidc.params?.acr_values)) return interactionPolicy.Check.NO_NEED_TO_PROMPT;
      const amr = (ctx.oidc.result?.login as { amr?: string[] } | undefined)?.amr ?? ctx.oidc.session?.amr ?? [];
      return amr.includes('otp') ? interactionPolicy.Check.NO_NEED_TO_PROMPT : interactionPolicy.Check.REQUEST_PROMPT;
    },
  );
}
