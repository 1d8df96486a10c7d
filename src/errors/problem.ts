import type { Request, Response } from 'express';
import { ApiError, ERROR_CATALOGUE, type ErrorCode, type FieldError, type NextStep } from './catalogue.ts';

/** RFC 9457 problem details, as the contract's Problem schema describes them. */
export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail?: string;
  code: ErrorCode;
  requestId: string;
  errors?: FieldError[];
}

export const PROBLEM_TYPE_BASE = 'https://docs.auth-gateway.dev/problems/';

export function toProblem(error: ApiError, requestId: string): ProblemBody {
  const body: ProblemBody = {
    type: `${PROBLEM_TYPE_BASE}${error.code.toLowerCase().replaceAll('_', '-')}`,
    title: ERROR_CATALOGUE[error.code].title,
    status: error.status,
    code: error.code,
    requestId,
  };
  if (error.detail) body.detail = error.detail;
  // Every entry carries a reason (the contract's promise): a rule that names none is `INVALID`.
  if (error.errors && error.errors.length > 0) body.errors = error.errors.map((entry) => (entry.reason ? entry : { ...entry, reason: 'INVALID' }));
  return body;
}

/** Endpoints a person's browser lands on answer it with a page, not JSON. */
const BROWSER_OPERATIONS = new Set(['startAuthentication', 'handleIdpCallback', 'resumeAuthentication', 'signOutBrowser', 'confirmSignOut', 'finishSignOut']);

export function wantsHtml(req: Request, operationId: string | undefined): boolean {
  if (!operationId || !BROWSER_OPERATIONS.has(operationId)) return false;
  const preferred = req.accepts(['application/problem+json', 'application/json', 'text/html']);
  return preferred === 'text/html';
}

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

function problemPage(problem: ProblemBody, nextStep: NextStep | undefined): string {
  const advice = problem.status >= 500 ? 'Please try again in a moment.' : 'Please go back to the application you came from and sign in again.';
  const again = nextStep
    ? `<p><a class="button" href="${escapeHtml(nextStep.href.href)}">${escapeHtml(nextStep.label)}</a></p>`
    : `<p>${advice}</p>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(problem.title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;color:#222}code{color:#555}
a.button{display:inline-block;padding:.6rem 1.2rem;background:#2457d6;color:#fff;border-radius:6px;text-decoration:none}</style>
</head><body>
<h1>${escapeHtml(problem.title)}</h1>
${problem.detail ? `<p>${escapeHtml(problem.detail)}</p>` : ''}
${problem.errors ? `<ul>${problem.errors.map((e) => `<li><code>${escapeHtml(e.pointer)}</code> ${escapeHtml(e.message)}</li>`).join('')}</ul>` : ''}
${again}
<p><small>Reference: <code>${escapeHtml(problem.code)}</code> · request <code>${escapeHtml(problem.requestId)}</code></small></p>
</body></html>
`;
}

/**
 * A request made by a page's script (fetch or XHR: Sec-Fetch-Dest `empty`), such as "Try it
 * out" in /docs. A Basic challenge makes the browser pop up its own password dialog over the
 * page instead of letting the script see the 401, so it is left out for such a request; a
 * server-side client, which sends no Sec-Fetch-* headers, still gets the challenge RFC 9110
 * §11.6.1 asks for.
 */
function fromPageScript(req: Request): boolean {
  return req.headers['sec-fetch-dest'] === 'empty';
}

export function sendProblem(req: Request, res: Response, error: ApiError, operationId?: string): void {
  const problem = toProblem(error, String(req.id ?? ''));
  if (error.headers) {
    const { 'WWW-Authenticate': challenge, ...others } = error.headers;
    res.set(challenge?.startsWith('Basic') && fromPageScript(req) ? others : error.headers);
  }
  res.status(problem.status);
  // Errors must never be cached: some carry state about a login in progress.
  res.set('Cache-Control', 'no-store');
  if (wantsHtml(req, operationId)) {
    res.type('text/html; charset=utf-8').send(problemPage(problem, error.nextStep));
    return;
  }
  res.type('application/problem+json').send(JSON.stringify(problem));
}
