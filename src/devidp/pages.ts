// HTML pages of the dev IdP: login form, error page, logout pages.
//
// Everything interpolated goes through escapeHtml (OWASP XSS prevention, rule #1: HTML-encode
// untrusted data placed in element content or quoted attributes). The pages load nothing from
// elsewhere: inline CSS only, no scripts.

export const PAGE_TITLE = 'Dev identity provider';

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (ch) => HTML_ESCAPES[ch] ?? ch);
}

const STYLE = `
  body{font-family:system-ui,sans-serif;background:#f4f5f7;margin:0;padding:40px 16px;color:#1f2328}
  main{max-width:360px;margin:0 auto;background:#fff;border:1px solid #d0d7de;border-radius:8px;padding:24px}
  h1{font-size:1.4em;margin:0 0 4px}
  p.sub{color:#57606a;margin:0 0 16px;font-size:.9em}
  label{display:block;font-weight:600;margin:12px 0 4px}
  input[type=text],input[type=password]{width:100%;box-sizing:border-box;padding:8px;font-size:1em;border:1px solid #d0d7de;border-radius:6px}
  button{margin-top:16px;width:100%;padding:10px;font-size:1em;border:0;border-radius:6px;background:#0969da;color:#fff;cursor:pointer}
  button.secondary{background:transparent;color:#57606a;margin-top:8px}
  .error{background:#ffebe9;border:1px solid #ff8182;color:#82071e;padding:8px;border-radius:6px;margin:12px 0}
  .hint{color:#57606a;font-size:.85em;margin-top:16px}
  code{background:#f6f8fa;padding:1px 4px;border-radius:4px}
  a.button{display:block;text-align:center;margin-top:16px;padding:10px;border-radius:6px;background:#0969da;color:#fff;text-decoration:none}
`;

function layout(title: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>`;
}

export interface LoginPageInput {
  /** absolute-path reference the form posts to (the interaction URL itself) */
  action: string;
  clientId: string;
  scope: string | undefined;
  username?: string;
  error?: string;
  /** pairs shown as a convenience hint for the seeded dev accounts */
  hintAccounts?: Array<{ username: string; password: string }>;
  /** The client asked for a second factor: ask for a one-time code (TOTP) too. */
  secondFactor?: boolean;
}

export function renderLoginPage(input: LoginPageInput): string {
  const error = input.error ? `<div class="error" role="alert">${escapeHtml(input.error)}</div>` : '';
  const scope = input.scope ? ` &middot; scope <code>${escapeHtml(input.scope)}</code>` : '';
  const hint = input.hintAccounts?.length
    ? `<p class="hint">Seeded accounts: ${input.hintAccounts
      .map((a) => `<code>${escapeHtml(a.username)}</code> / <code>${escapeHtml(a.password)}</code>`)
      .join(', ')}</p>`
    : '';
  return layout(PAGE_TITLE, `<h1>${escapeHtml(PAGE_TITLE)}</h1>
<p class="sub">Sign in to continue to <code>${escapeHtml(input.clientId)}</code>${scope}</p>
${error}
<form method="post" action="${escapeHtml(input.action)}" enctype="application/x-www-form-urlencoded" autocomplete="off">
<label for="username">Username</label>
<input type="text" id="username" name="username" value="${escapeHtml(input.username ?? '')}" required autofocus>
<label for="password">Password</label>
<input type="password" id="password" name="password" required>
${input.secondFactor ? `<label for="otp">One-time code</label>
<input type="text" id="otp" name="otp" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength="6" required>
<p class="hint">This application asks for a second factor: the 6-digit code of your authenticator app (<code>npm start</code> prints the demo users' secrets).</p>` : ''}
<button type="submit">Sign in</button>
<button type="submit" class="secondary" name="cancel" value="1" formnovalidate>Cancel</button>
</form>
${hint}`);
}

/** The way back an error page offers (the application a dev login starts from, when known). */
export interface BackLink {
  label: string;
  href: string;
}

/** "Back to the application": the dev stack's example BFF, where a dev login starts (DevIdpOptions.homeUrl). */
export function backToApplication(homeUrl: string | undefined): BackLink | undefined {
  return homeUrl ? { label: 'Back to the application', href: homeUrl } : undefined;
}

/**
 * An error in words: what happened, what to do, one link that does it. The OAuth error and its
 * description (oidc-provider's, for developers) stay below as a small reference. An unknown or
 * ended sign-in request (a long wait on this page, or Back after signing in) is the common
 * case: `invalid_request` with the interaction or its session gone, or an expired `login`.
 */
export function renderErrorPage(fields: { error?: unknown; error_description?: unknown } & Record<string, unknown>, back?: BackLink): string {
  const description = String(fields.error_description ?? '');
  const expired = fields.error === 'invalid_request' && /expired|not found|unknown|interaction|session/i.test(description);
  const title = expired ? 'This sign-in page has expired' : 'The sign-in could not continue';
  const said = expired
    ? 'You waited too long on this page, or you came back to it after signing in. Nothing was changed.'
    : 'The request that opened this page could not be completed here.';
  const whatToDo = back ? `Choose “${back.label}” and sign in again from there.` : 'Go back to the application you came from and sign in again.';
  const reference = [fields.error, fields.error_description].filter((v) => v !== undefined && v !== '').map(escapeHtml).join(': ');
  return layout(`${PAGE_TITLE}: ${title}`, `<h1>${escapeHtml(title)}</h1>
<p class="sub">${escapeHtml(said)}</p>
<p>${escapeHtml(whatToDo)}</p>
${back ? `<p><a class="button" href="${escapeHtml(back.href)}">${escapeHtml(back.label)}</a></p>` : ''}
${reference ? `<p class="hint">For developers: <code>${reference}</code></p>` : ''}`);
}

/**
 * RP-Initiated Logout 1.0 §2: the OP should confirm with the user. oidc-provider hands us its
 * form (already containing its anti-CSRF field, id "op.logoutForm"); we only add the buttons.
 */
export function renderLogoutPage(host: string, form: string): string {
  return layout(`${PAGE_TITLE}: sign out`, `<h1>${escapeHtml(PAGE_TITLE)}</h1>
<p class="sub">Sign out from ${escapeHtml(host)}?</p>
${form}
<button type="submit" form="op.logoutForm" name="logout" value="yes" autofocus>Yes, sign me out</button>
<button type="submit" form="op.logoutForm" class="secondary">No, stay signed in</button>`);
}

export function renderLoggedOutPage(): string {
  return layout(`${PAGE_TITLE}: signed out`, `<h1>${escapeHtml(PAGE_TITLE)}</h1>
<p class="sub">You have been signed out.</p>`);
}
