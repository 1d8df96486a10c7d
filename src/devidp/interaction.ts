// The dev identity provider's interactions: the plain HTML login page (sign in, cancel) and the
// implicit consent of first-party dev clients.

import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Provider } from 'oidc-provider';

import { describeError, FORM_BODY_LIMIT, isFormPost, readBody, redirect, secretMatches, sendHtml } from './http.ts';
import { renderErrorPage, renderLoginPage } from './pages.ts';
import type { TokenShaper } from './tokenShape.ts';
import type { DevIdpUser } from './users.ts';

export interface InteractionContext {
  provider: Provider;
  users: readonly DevIdpUser[];
  usersBySub: ReadonlyMap<string, DevIdpUser>;
  shaper: TokenShaper;
  /** Show the seeded accounts on the login page (only when the seeded users are in use). */
  showHints: boolean;
  logger: { info(obj: object, msg?: string): void } | undefined;
}

export function createInteractionHandler(context: InteractionContext) {
  const { provider, usersBySub, logger } = context;
  const usersByName = new Map(context.users.map((u) => [u.username, u]));
  const hintAccounts = context.showHints ? context.users.map((u) => ({ username: u.username, password: u.password })) : undefined;

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
      sendHtml(res, 400, renderErrorPage({
        error: 'invalid_request',
        error_description: 'This sign-in request has expired or is unknown. Start again from the application.',
      }));
      return;
    }
    if (interaction.uid !== uid) {
      sendHtml(res, 400, renderErrorPage({ error: 'invalid_request', error_description: 'interaction mismatch' }));
      return;
    }

    const clientId = interaction.params.client_id ?? '';
    const scope = interaction.params.scope;
    const action = `/interaction/${encodeURIComponent(uid)}`;

    if (interaction.prompt.name === 'consent') {
      await consent(req, res, interaction);
      return;
    }

    if (req.method === 'GET' || req.method === 'HEAD') {
      sendHtml(res, 200, renderLoginPage({ action, clientId, scope, hintAccounts }));
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
    const user = usersByName.get(username);
    // Always run the comparison so an unknown username takes as long as a wrong password.
    const ok = secretMatches(user?.password ?? randomBytes(16).toString('hex'), password) && user !== undefined;
    if (!ok || !user) {
      // Never log the password; the username is fine (dev accounts, and helps debugging).
      logger?.info({ component: 'dev-idp', username, clientId }, 'dev IdP sign-in failed');
      // 200, not 401: a 401 would require a WWW-Authenticate challenge (RFC 9110 §15.5.2),
      // which does not apply to an HTML form.
      sendHtml(res, 200, renderLoginPage({
        action,
        clientId,
        scope,
        username,
        error: 'Invalid username or password.',
        hintAccounts,
      }));
      return;
    }

    const returnTo = await provider.interactionResult(req, res, {
      login: { accountId: user.sub, amr: ['pwd'] },
    }, { mergeWithLastSubmission: false });
    logger?.info({ component: 'dev-idp', username, sub: user.sub, clientId }, 'dev IdP sign-in succeeded');
    redirect(res, returnTo);
  };
}
