import { useEffect, useId, useRef } from 'react';

export interface ErrorSummaryProps {
  /** The message above the form (the gateway's detail, or our own). */
  message: string;
  /** Field errors: the input's id and the text; each links to its input. */
  errors?: { inputId: string; label: string; message: string }[];
}

/**
 * The errors of a form, above it. It takes the focus when it appears, so a keyboard or
 * screen-reader user lands on it; each entry moves the focus to its input. An entry whose field
 * was corrected goes away without moving the focus.
 */
export function ErrorSummary({ message, errors = [] }: ErrorSummaryProps) {
  const ref = useRef<HTMLDivElement>(null);
  // Its own title id: a page may show more than one summary (a fixed id named the first one's title for all).
  const titleId = useId();
  // Focus on a new message or more errors; not when an entry goes because its field was
  // corrected (that would take the focus from the input being typed in).
  const shown = useRef<{ message: string; count: number } | null>(null);
  useEffect(() => {
    const before = shown.current;
    shown.current = { message, count: errors.length };
    if (!before || before.message !== message || errors.length > before.count) ref.current?.focus();
  }, [message, errors.length]);
  return (
    <div ref={ref} className="error-summary" role="alert" tabIndex={-1} aria-labelledby={titleId}>
      <h2 id={titleId}>{message}</h2>
      {errors.length > 0 ? (
        <ul>
          {errors.map((error) => (
            <li key={error.inputId}>
              <a
                href={`#${error.inputId}`}
                onClick={(event) => {
                  event.preventDefault();
                  document.getElementById(error.inputId)?.focus();
                }}
              >
                {error.label}: {error.message}
              </a>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
