import type { Request, Response } from 'express';
import { escapeHtml, htmlPage } from '../web/page.ts';
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

/**
 * A page for the browser endpoints, and for an address the contract does not publish (a typo'd
 * path opened in a browser): a person reads it. Only when the request prefers HTML: a client that
 * asks for JSON, or names no preference, gets problem+json.
 */
export function wantsHtml(req: Request, operationId: string | undefined, code?: ErrorCode): boolean {
  const browserFacing = operationId ? BROWSER_OPERATIONS.has(operationId) : code === 'NOT_FOUND' || code === 'METHOD_NOT_ALLOWED';
  if (!browserFacing) return false;
  const preferred = req.accepts(['application/problem+json', 'application/json', 'text/html']);
  return preferred === 'text/html';
}

/** A page in words for a code a browser meets; anything else shows the catalogue's title and detail. */
const PAGE_WORDS: Partial<Record<ErrorCode, { title: string; detail?: string }>> = {
  TRANSACTION_NOT_FOUND: { title: 'This sign-in has expired', detail: 'The sign-in took longer than it may, or this page was opened again after the sign-in had already ended.' },
  VALIDATION_FAILED: { title: 'This link is incomplete', detail: 'The address that brought you here is missing something or was changed, so it cannot be followed.' },
  NOT_FOUND: { title: 'There is no page at this address', detail: 'The address may be mistyped, or the link that brought you here is out of date.' },
  METHOD_NOT_ALLOWED: { title: 'There is no page at this address', detail: 'The address may be mistyped, or the link that brought you here is out of date.' },
  LOGIN_BROWSER_MISMATCH: { title: 'This sign-in was started in another browser' },
  IDP_ERROR: { title: 'The sign-in was not completed', detail: 'The sign-in service ended the sign-in before it was complete.' },
};

function problemPage(problem: ProblemBody, nextStep: NextStep | undefined, pageTitle: string | undefined, languages: readonly string[] = []): string {
  // A case with a heading of its own (pageTitle) says it with its own detail, not the code's words.
  const words = pageTitle === undefined ? PAGE_WORDS[problem.code] : { title: pageTitle, detail: problem.detail };
  const title = words?.title ?? problem.title;
  // Validator messages (`/query/platformKey must have …`) are for programs: the page says it in words.
  const detail = words?.detail ?? (problem.errors ? undefined : problem.detail);
  const whatToDo = nextStep
    ? `Choose “${nextStep.label}” to continue.`
    : problem.status >= 500
      ? 'Please try again in a moment.'
      : 'Please go back to the application you came from and sign in again.';
  return htmlPage(
    title,
    `<h1>${escapeHtml(title)}</h1>
${detail ? `<p class="lead">${escapeHtml(detail)}</p>` : ''}
<p>${escapeHtml(whatToDo)}</p>
${nextStep ? `<p class="actions"><a class="button" href="${escapeHtml(nextStep.href.href)}">${escapeHtml(nextStep.label)}</a></p>` : ''}
<p class="reference">If you contact support, quote: <code>${escapeHtml(problem.code)}</code> · <code>${escapeHtml(problem.requestId)}</code></p>`,
    // A login's page in its platform's face (issue 27), when the way back names the platform.
    { platform: nextStep?.brand, languages },
  );
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
  if (wantsHtml(req, operationId, error.code)) {
    res.type('text/html; charset=utf-8').send(problemPage(problem, error.nextStep, error.pageTitle, req.acceptsLanguages()));
    return;
  }
  res.type('application/problem+json').send(JSON.stringify(problem));
}
