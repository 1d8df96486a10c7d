import type { Request, Response } from 'express';
import { escapeHtml, htmlPage } from '../web/page.ts';
import { pageIntl, pageLanguageOf, preferredLanguages, type PageLanguage } from '../web/i18n.ts';
import { brandLabel } from '../web/platformBrand.ts';
import { ApiError, ERROR_CATALOGUE, type ErrorCode, type FieldError, type NextStep, type PageTitleKey } from './catalogue.ts';

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

/**
 * A page in words for a code a browser meets, by message ids of src/web/messages/<language>/errors.json
 * (a detail of its own, or none); anything else shows the catalogue's English title and the
 * error's detail, or, in another language, general words (the code and reference stay below).
 */
const PAGE_WORDS: Partial<Record<ErrorCode, { title: string; detail?: string }>> = {
  TRANSACTION_NOT_FOUND: { title: 'errors.TRANSACTION_NOT_FOUND.title', detail: 'errors.TRANSACTION_NOT_FOUND.detail' },
  VALIDATION_FAILED: { title: 'errors.VALIDATION_FAILED.title', detail: 'errors.VALIDATION_FAILED.detail' },
  NOT_FOUND: { title: 'errors.NOT_FOUND.title', detail: 'errors.NOT_FOUND.detail' },
  METHOD_NOT_ALLOWED: { title: 'errors.NOT_FOUND.title', detail: 'errors.NOT_FOUND.detail' },
  LOGIN_BROWSER_MISMATCH: { title: 'errors.LOGIN_BROWSER_MISMATCH.title' },
  IDP_ERROR: { title: 'errors.IDP_ERROR.title', detail: 'errors.IDP_ERROR.detail' },
};

/**
 * The way forward's label in the page's language: the services name it by key (NextStepLabel).
 * "Back to <platform>" names the platform as the frame does (its name in the page's languages).
 */
function nextStepLabel(language: PageLanguage, nextStep: NextStep, languages: readonly string[]): string {
  const intl = pageIntl(language);
  const { label } = nextStep;
  if (label.key !== 'backTo') return intl.formatMessage({ id: `errors.next.${label.key}` });
  return intl.formatMessage({ id: 'errors.next.backTo' }, { platform: nextStep.brand ? brandLabel(nextStep.brand, languages) : label.platform });
}

/** Where the reference (markup: code elements) goes in its escaped sentence; never in a message. */
const PLACEHOLDER = '\u0000';

/**
 * `language`: the page's words (src/web/messages); `languages`: the request's Accept-Language
 * list, for which of a branded platform's names the frame shows.
 */
function problemPage(problem: ProblemBody, nextStep: NextStep | undefined, pageTitle: PageTitleKey | undefined, language: PageLanguage, languages: readonly string[] = []): string {
  const intl = pageIntl(language);
  const say = (id: string, values?: Record<string, string>) => intl.formatMessage({ id }, values);
  // A case with a heading of its own (pageTitle) says it with its own detail, not the code's words.
  const known = pageTitle === undefined ? PAGE_WORDS[problem.code] : { title: `errors.${pageTitle}.title`, detail: `errors.${pageTitle}.detail` };
  let title: string;
  let detail: string | undefined;
  if (known) {
    title = say(known.title);
    detail = known.detail ? say(known.detail) : undefined;
  } else if (language === 'en') {
    title = problem.title;
    // Validator messages (`/query/platformKey must have …`) are for programs: the page says it in words.
    detail = problem.errors ? undefined : problem.detail;
  } else {
    title = say('errors.other.title');
    detail = say('errors.other.detail');
  }
  const label = nextStep ? nextStepLabel(language, nextStep, languages) : undefined;
  const whatToDo = label ? say('errors.whatToDo.next', { label }) : say(problem.status >= 500 ? 'errors.whatToDo.retry' : 'errors.whatToDo.back');
  const reference = `<code>${escapeHtml(problem.code)}</code> · <code>${escapeHtml(problem.requestId)}</code>`;
  return htmlPage(
    title,
    `<h1>${escapeHtml(title)}</h1>
${detail ? `<p class="lead">${escapeHtml(detail)}</p>` : ''}
<p>${escapeHtml(whatToDo)}</p>
${nextStep && label ? `<p class="actions"><a class="button" href="${escapeHtml(nextStep.href.href)}">${escapeHtml(label)}</a></p>` : ''}
<p class="reference">${escapeHtml(say('errors.reference', { reference: PLACEHOLDER })).replace(PLACEHOLDER, reference)}</p>`,
    // A login's page in its platform's face (issue 27), when the way back names the platform.
    { language, platform: nextStep?.brand, languages },
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
    // A login's page falls back to its platform's default language (read with the platform row).
    const platformDefault = error.nextStep?.brand?.defaultLanguage ?? null;
    const language = pageLanguageOf(req, platformDefault);
    res.set({ 'Content-Language': language, Vary: 'Accept-Language' });
    const languages = platformDefault ? [...preferredLanguages(req), platformDefault] : preferredLanguages(req);
    res.type('text/html; charset=utf-8').send(problemPage(problem, error.nextStep, error.pageTitle, language, languages));
    return;
  }
  res.type('application/problem+json').send(JSON.stringify(problem));
}
