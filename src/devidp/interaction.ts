// The dev identity provider's interactions: the plain HTML login page (sign in, cancel) and the
// implicit consent of first-party dev clients.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Provider } from 'oidc-provider';

import type { DevIdpAccountStore } from './accounts.ts';
import type { ActiveUsers } from './configuration.ts';
import { describeError, FORM_BODY_LIMIT, isFormPost, readBody, redirect, sendHtml } from './http.ts';
import { backToApplication, renderErrorPage, renderLoginPage } from './pages.ts';
import type { TokenShaper } from './tokenShape.ts';
import { asksSecondFactor, checkSecondFactor, signInAmr } from './secondFactor.ts';

export interface InteractionContext {
  provider: Provider;
  /** Who may sign in, with which password (accounts.ts). */
  accounts: DevIdpAccountStore;
  usersBySub: ActiveUsers;
  shaper: TokenShaper;
  /** Show the seeded accounts on the login page (only when the seeded users are in use). */
  showHints: boolean;
  /** The application a person is sent back to from an expired sign-in. */
  homeUrl: string | undefined;
  /** Each user's TOTP secret (base32) by subject: the second factor (secondFactor.ts). */
  totpSecrets: Readonly<Record<string, string>>;
  logger: { info(obj: object, msg?: string): void } | undefined;
}

export function createInteractionHandler(context: InteractionContext) {
  const { provider, usersBySub, accounts, logger } = context;
  // The seeded accounts whose published password still works (a changed one is no longer shown).
  const hintAccounts = () => (context.showHints ? accounts.seedHints() : undefined);

  /**
   * Normally unreachable (the grant reconciler pre-approves everything), but if the provider does
   * ask, approve on the user's behalf: first-party dev clients, no consent screen.
   */
  async function consent(req: IncomingMessage, res: ServerResponse, interaction: Awaited<ReturnType<Provider['interactionDetails']>>): Promise<void> {
    const clientId = interaction.params.client_id ?? '';
    const accountId = interaction.session?.accountId;
    if (!accountId) {
      sendHtml(res, 400, renderErrorPage({ error: 'invalid_request', error_description: 'no signed-in user' }));
      return;
    }
    const grant = interaction.grantId
      ? (await provider.Grant.find(interaction.grantId)) ?? new provider.Grant({ accountId, clientId })
      : new provider.Grant({ accountId, clientId });
    const { missingOIDCScope, missingOIDCClaims, missingResourceScopes } = interaction.prompt.details;
    if (missingOIDCScope?.length) grant.addOIDCScope(missingOIDCScope.join(' '));
    if (missingOIDCClaims?.length) grant.addOIDCClaims(missingOIDCClaims);
    const user = usersBySub.get(accountId);
    for (const [indicator, scopes] of Object.entries(missingResourceScopes ?? {})) {
      const allowed = scopes.filter((s) => context.shaper.mayGrantScope(user, s));
      const denied = scopes.filter((s) => !context.shaper.mayGrantScope(user, s));
      if (allowed.length) grant.addResourceScope(indicator, allowed.join(' '));
      if (denied.length) grant.rejectResourceScope(indicator, denied.join(' '));
    }
    const grantId = await grant.save();
    const returnTo = await provider.interactionResult(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
    redirect(res, returnTo);
  }

  return async function handleInteraction(req: IncomingMessage, res: ServerResponse, uid: string): Promise<void> {
    let interaction;
    try {
      interaction = await provider.interactionDetails(req, res);
    } catch (err) {
      logger?.info({ component: 'dev-idp', ...describeError(err) }, 'dev IdP interaction not found');
      sendHtml(res, 400, renderErrorPage({ error: 'invalid_request', error_description: 'interaction expired or unknown' }, backToApplication(context.homeUrl)));
      return;
    }
    if (interaction.uid !== uid) {
      sendHtml(res, 400, renderErrorPage({ error: 'invalid_request', error_description: 'interaction mismatch' }));
      return;
    }

    const clientId = interaction.params.client_id ?? '';
    const scope = interaction.params.scope;
    const action = `/interaction/${encodeURIComponent(uid)}`;
    // The client asked for a second factor (`acr_values`): the page asks for a one-time code too.
    const secondFactor = asksSecondFactor(interaction.params.acr_values);

    if (interaction.prompt.name === 'consent') {
      await consent(req, res, interaction);
      return;
    }

    if (req.method === 'GET' || req.method === 'HEAD') {
      sendHtml(res, 200, renderLoginPage({ action, clientId, scope, hintAccounts: hintAccounts(), secondFactor }));
      return;
    }

    if (req.method !== 'POST') {
      res.statusCode = 405;
      res.setHeader('Allow', 'GET, POST');
      res.end();
      return;
    }

    if (!isFormPost(req)) {
      sendHtml(res, 415, renderErrorPage({ error: 'invalid_request', error_description: 'expected a form submission' }));
      return;
    }
    const form = new URLSearchParams((await readBody(req, FORM_BODY_LIMIT)).toString('utf8'));

    if (form.get('cancel')) {
      // OIDC Core §3.1.2.6: the user declined; the client receives error=access_denied.
      const returnTo = await provider.interactionResult(req, res, {
        error: 'access_denied',
        error_description: 'End-User cancelled the sign-in',
      }, { mergeWithLastSubmission: false });
      logger?.info({ component: 'dev-idp', clientId }, 'dev IdP sign-in cancelled');
      redirect(res, returnTo);
      return;
    }

    const username = (form.get('username') ?? '').trim();
    const password = form.get('password') ?? '';
    const result = await accounts.signIn(username, password);
    if (result.status !== 'ok') {
      // Never log the password; the username is fine (dev accounts, and helps debugging).
      logger?.info({ component: 'dev-idp', username, clientId, refused: result.status }, 'dev IdP sign-in failed');
      // 200, not 401: a 401 would require a WWW-Authenticate challenge (RFC 9110 §15.5.2),
      // which does not apply to an HTML form. A deactivated account is told so only after
      // its password was right.
      sendHtml(res, 200, renderLoginPage({
        action,
        clientId,
        scope,
        username,
        error: result.status === 'inactive' ? 'This account has been deactivated.' : 'Invalid username or password.',
        hintAccounts: hintAccounts(),
        secondFactor,
      }));
      return;
    }
    const user = result.profile;
    if (secondFactor) {
      const check = checkSecondFactor(context.totpSecrets, user.sub, form.get('otp') ?? '');
      if (check !== 'ok') {
        logger?.info({ component: 'dev-idp', username, clientId, refused: `second_factor_${check}` }, 'dev IdP sign-in failed');
        sendHtml(res, 200, renderLoginPage({
          action,
          clientId,
          scope,
          username,
          error: check === 'not_enrolled' ? 'This account has no second factor set up.' : 'Invalid one-time code.',
          hintAccounts: hintAccounts(),
          secondFactor,
        }));
        return;
      }
    }

    // amr (RFC 8176) and, with a second factor, the multi-factor acr: the ID token reports them.
    const returnTo = await provider.interactionResult(req, res, {
      login: { accountId: user.sub, ...signInAmr(secondFactor) },
    }, { mergeWithLastSubmission: false });
    logger?.info({ component: 'dev-idp', username, sub: user.sub, clientId }, 'dev IdP sign-in succeeded');
    redirect(res, returnTo);
  };
}
