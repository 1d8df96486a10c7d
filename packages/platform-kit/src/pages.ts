// The page of a sign-in that could not finish: what happened, in words, and a way forward.
export interface SignInFailure {
  status: number;
  /**
   * incomplete: no code; no-login: this browser holds no login with this correlation value
   * (expired cookie, another browser, someone else's link); expired: the login's cookie is
   * past its time; refused: the gateway refused the code (spent, expired: `code` says);
   * unreachable: the gateway did not answer; not-confirmed: a step-up's exchange did not meet
   * what it asked (the session stays as it was); ambiguous-cookie: the request carries one of
   * the kit's cookies twice (cookie tossing), so nothing was done.
   */
  reason: 'incomplete' | 'no-login' | 'expired' | 'refused' | 'unreachable' | 'not-confirmed' | 'ambiguous-cookie';
  message: string;
  /** The gateway's error code, when it refused. */
  code?: string;
  /**
   * The way forward: the sign-in route, with the login's returnTo when known ("Start again"); for
   * a step-up, the page that asked for it, which offers the confirmation again ("Try again").
   */
  startAgain: string;
  /** The words of that link: "Start again" or "Try again". */
  label: string;
}

export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

export function failurePage(failure: SignInFailure): string {
  const code = failure.code ? ` <code>${escapeHtml(failure.code)}</code>` : '';
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Sign-in did not complete</title></head>
<body><main><h1>Sign-in did not complete</h1><p id="sign-in-failure" data-reason="${escapeHtml(failure.reason)}">${escapeHtml(failure.message)}${code}</p>
<p><a href="${escapeHtml(failure.startAgain)}">${escapeHtml(failure.label)}</a></p></main></body></html>`;
}
