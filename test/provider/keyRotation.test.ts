// Check 8 of issue 32: a key rotation at LemonLDAP::NG, with its own tool (rotateOidcKeys: a new
// signing key, the old one removed from its key set), while the gateway runs: the next login's ID
// token names a key the gateway has not seen, the gateway fetches LLNG's key set again, and the
// login passes, with no restart.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchangeCode, ROSE, skipReason, startDirectLogin, startGatewayStack, type GatewayStack } from './gatewayStack.ts';

const skipped = skipReason();

describe.skipIf(skipped !== null)(`key rotation at LemonLDAP::NG${skipped ? ` (skipped: ${skipped})` : ''}`, () => {
  let stack: GatewayStack;
  beforeAll(async () => {
    stack = await startGatewayStack();
  });
  afterAll(async () => {
    await stack?.close();
  });

  const keyIds = async () => ((await (await fetch(new URL('/oauth2/jwks', stack.llng.issuer))).json()) as { keys: { kid: string }[] }).keys.map((key) => key.kid);

  it('check 8: after LLNG rotates its signing key (the old one removed), logins keep working without restarting the gateway', async () => {
    const context = await stack.browser.newContext();
    const before = await startDirectLogin(stack, context, {}, ROSE);
    expect((await exchangeCode(stack, before.code!)).status).toBe(200);
    const oldKeys = await keyIds();

    await stack.llng.rotateKeys();
    const newKeys = await keyIds();
    expect(newKeys).toHaveLength(1);
    expect(oldKeys).not.toContain(newKeys[0]);

    // A second login (LLNG's single sign-on session survives the new configuration).
    const after = await startDirectLogin(stack, context, {}, ROSE);
    expect(after.error).toBeNull();
    const exchanged = await exchangeCode(stack, after.code!);
    expect(exchanged.status).toBe(200);
    expect(exchanged.body.user.sub).toBe(ROSE.login);
    await context.close();
  });
});
