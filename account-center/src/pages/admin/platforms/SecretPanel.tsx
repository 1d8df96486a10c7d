import { useEffect, useId, useRef, useState, type ReactNode } from 'react';

/**
 * A platform's client id and secret, shown once (after create and after rotation). The values
 * live only in the state of the page that shows this panel: never in storage, the URL or the
 * history, so they are gone once the person leaves. Copy uses the clipboard API and says how
 * it went in a polite status line; when the clipboard is refused the text is selected instead.
 */
export function SecretPanel({ platformKey, clientId, clientSecret, title, children }: {
  platformKey: string;
  clientId: string;
  clientSecret: string;
  title: string;
  /** The way on (a button or link), below the values. */
  children?: ReactNode;
}) {
  const headingId = useId();
  const heading = useRef<HTMLHeadingElement>(null);
  const [status, setStatus] = useState('');

  // The panel replaces what the person acted on: move the focus to it so it is read first.
  useEffect(() => {
    heading.current?.focus();
  }, []);

  return (
    <section className="panel platforms-secret" aria-labelledby={headingId}>
      <h2 id={headingId} ref={heading} tabIndex={-1}>{title}</h2>
      <div className="platforms-secret-warning">
        <p><strong>You will not see this secret again. Store it now.</strong></p>
        <p>
          {`Put the client ID and secret into ${platformKey}'s configuration (its secret store) now. The gateway keeps only a digest of the secret; if it is lost, rotate the credentials to get a new one.`}
        </p>
      </div>
      <CopyField label="Client ID" noun="client ID" value={clientId} onStatus={setStatus} />
      <CopyField label="Client secret" noun="client secret" value={clientSecret} onStatus={setStatus} />
      <p className="platforms-copy-status" role="status">{status}</p>
      {children ? <div className="actions">{children}</div> : null}
    </section>
  );
}

function CopyField({ label, noun, value, onStatus }: { label: string; noun: string; value: string; onStatus: (message: string) => void }) {
  const id = useId();
  const input = useRef<HTMLTextAreaElement>(null);
  const copy = async () => {
    onStatus(''); // a second copy of the same value is announced again
    try {
      if (!navigator.clipboard?.writeText) throw new Error('no clipboard');
      await navigator.clipboard.writeText(value);
      onStatus(`Copied the ${noun} to the clipboard.`);
    } catch {
      input.current?.focus();
      input.current?.select();
      onStatus(`Could not copy the ${noun}: it is selected, press Ctrl+C (or ⌘C) to copy it.`);
    }
  };
  return (
    <div className="field platforms-copy-field">
      <label htmlFor={id}>{label}</label>
      <div className="platforms-copy-row">
        {/* A read-only text area, not an input: it wraps, so the whole value is visible on a phone too. */}
        <textarea
          ref={input}
          id={id}
          className="platforms-mono platforms-copy-value"
          readOnly
          rows={1}
          value={value}
          spellCheck={false}
          autoComplete="off"
          autoCapitalize="off"
          onFocus={(event) => event.currentTarget.select()}
        />
        <button type="button" className="button button-secondary" aria-label={`Copy ${noun}`} onClick={() => void copy()}>
          Copy
        </button>
      </div>
    </div>
  );
}
