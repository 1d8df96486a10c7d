// The page of a sign-in that could not finish: what happened, in words, and a way forward.
export interface SignInFailure {
  status: number;
  /**
   * incomplete: no code; no-login: this browser holds no login with this correlation value
   * (expired cookie, another browser, someone else's link); expired: the login's cookie is
   * past its time; refused: the gateway refused the code (spent, expired: `code` says);
   * unreachable: the gateway did not answer.
   */
  reason: 'incomplete' | 'no-login' | 'expired' | 'refused' | 'unreachable';
  message: string;
  /** The gateway's error code, when it refused. */
  code?: string;
  /** The sign-in route, with the login's returnTo when known: "Start again". */
  startAgain: string;
}

export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

export function failurePage(failure: SignInFailure): string {
  const code = failure.code ? ` <code>${escapeHtml(failure.code)}</code>` : '';
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Sign-in did not complete</title></head>
<body><main><h1>Sign-in did not complete</h1><p id="sign-in-failure" data-reason="${escapeHtml(failure.reason)}">${escapeHtml(failure.message)}${code}</p>
<p><a href="${escapeHtml(failure.startAgain)}">Start again</a></p></main></body></html>`;
}
