import { useEffect, useId, useRef } from 'react';

export interface ErrorSummaryProps {
  /** The message above the form (the gateway's detail, or our own). */
  message: string;
  /** Field errors: the input's id and the text; each links to its input. */
  errors?: { inputId: string; label: string; message: string }[];
}

/**
 * The errors of a form, above it. It takes the focus when it appears, so a keyboard or
 * screen-reader user lands on it; each entry moves the focus to its input.
 */
export function ErrorSummary({ message, errors = [] }: ErrorSummaryProps) {
  const ref = useRef<HTMLDivElement>(null);
  // Its own title id: a page may show more than one summary (a fixed id named the first one's title for all).
  const titleId = useId();
  useEffect(() => {
    ref.current?.focus();
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
