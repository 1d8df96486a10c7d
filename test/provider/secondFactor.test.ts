// Check 4 of issue 32: requireSecondFactor against LemonLDAP::NG with TOTP. LLNG 2.16 reads
// `acr_values` but acts on nothing in it, and emits no `amr` ("TODO amr" in its issuer): what it
// does is authentication levels. A password is level 1; its TOTP module raises the session to
// level 5 (totp2fAuthnLevel), which oidcServiceMetaDataAuthnContext maps onto the acr
// http://schemas.openid.net/pape/policies/2007/06/multi-factor, the gateway's default
// OIDC_SECOND_FACTOR_ACR: LLNG lists it in discovery, the gateway sends it as acr_values, and
// the ID token's acr says whether the second factor was used (docs/providers.md).
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE } from '../../src/errors/catalogue.ts';
import { MULTI_FACTOR_ACR } from '../../src/config/index.ts';
import { base32Encode, totp } from '../../src/devidp/totp.ts';
import { DOCTOR, exchangeCode, ROSE, skipReason, startDirectLogin, startGatewayStack, type GatewayStack } from './gatewayStack.ts';

const skipped = skipReason();

describe.skipIf(skipped !== null)(`second factor at LemonLDAP::NG${skipped ? ` (skipped: ${skipped})` : ''}`, () => {
  let stack: GatewayStack;
  const secret = randomBytes(20);
  beforeAll(async () => {
    stack = await startGatewayStack();
    stack.llng.registerTotp(DOCTOR.login, base32Encode(secret));
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('check 4: requireSecondFactor: LLNG asks the TOTP code of a person who has one; the ID token\'s acr says so and the login passes', async () => {
    const context = await stack.browser.newContext();
    const login = await startDirectLogin(stack, context, { requireSecondFactor: 'true' }, DOCTOR, () => totp(secret, Date.now() / 1000));
    expect(login.shownLoginPage).toBe(true);
    expect(login.askedCode).toBe(true);
    expect(login.error).toBeNull();
    const exchanged = await exchangeCode(stack, login.code!);
    expect(exchanged.status).toBe(200);
    expect(exchanged.body.authentication).toMatchObject({ acr: MULTI_FACTOR_ACR, requested: { secondFactor: true } });
    await context.close();
  });

  it('check 4: requireSecondFactor: a sign-in with a password only (level 1, acr loa-1) is refused', async () => {
    const context = await stack.browser.newContext();
    const login = await startDirectLogin(stack, context, { requireSecondFactor: 'true' }, ROSE);
    expect(login.shownLoginPage).toBe(true);
    expect(login.askedCode).toBe(false);
    expect(login.code).toBeNull();
    expect(login.error).toContain(ERROR_CATALOGUE.SECOND_FACTOR_MISSING.title);
    await context.close();
  });
});
