// Problems from the gateway in the person's language. problem+json keeps its stable `code` and
// each field error its `reason` (the contract's promise); the account center says them in its
// own words from the `errors` catalogue. A code or reason it has no words for shows the
// gateway's own (English) text, so nothing is hidden.
import type { IntlShape } from 'react-intl';
import type { ApiProblem } from '../api.ts';

export type Formatter = Pick<IntlShape, 'formatMessage' | 'formatList' | 'messages'>;

const has = (intl: Formatter, id: string) => Object.hasOwn(intl.messages, id);

/** What went wrong, for a sentence on the page. */
export function problemText(intl: Formatter, problem: ApiProblem): string {
  const code = problem.problem?.code;
  if (code && has(intl, `errors.code.${code}`)) return intl.formatMessage({ id: `errors.code.${code}` });
  if (problem.problem) return problem.message;
  // No problem+json: no answer at all (0), a failure of the page itself (negative: its message
  // is already in the person's language), or an answer from something in between (a proxy's 502).
  if (problem.status === 0) return intl.formatMessage({ id: 'errors.network' });
  if (problem.status < 0) return problem.message;
  return intl.formatMessage({ id: 'errors.status' }, { status: problem.status });
}

/**
 * A field error by its reason, with the field's label; null when the catalogue has no words for
 * the reason (the caller then shows the gateway's message).
 */
export function reasonText(intl: Formatter, reason: string | undefined, label: string): string | null {
  return reason && has(intl, `errors.reason.${reason}`) ? intl.formatMessage({ id: `errors.reason.${reason}` }, { label }) : null;
}
