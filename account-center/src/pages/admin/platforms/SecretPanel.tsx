import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { useIntl } from 'react-intl';

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
  const intl = useIntl();

  // The panel replaces what the person acted on: move the focus to it so it is read first.
  useEffect(() => {
    heading.current?.focus();
  }, []);

  return (
    <section className="panel platforms-secret" aria-labelledby={headingId}>
      <h2 id={headingId} ref={heading} tabIndex={-1}>{title}</h2>
      <div className="platforms-secret-warning">
        <p><strong>{intl.formatMessage({ id: 'platforms.secret.once' })}</strong></p>
        <p>
          {intl.formatMessage({ id: 'platforms.secret.store' }, { key: platformKey })}
        </p>
      </div>
      <CopyField which="clientId" value={clientId} onStatus={setStatus} />
      <CopyField which="clientSecret" value={clientSecret} onStatus={setStatus} />
      <p className="platforms-copy-status" role="status">{status}</p>
      {children ? <div className="actions">{children}</div> : null}
    </section>
  );
}

function CopyField({ which, value, onStatus }: { which: 'clientId' | 'clientSecret'; value: string; onStatus: (message: string) => void }) {
  const id = useId();
  const intl = useIntl();
  const t = (id: string) => intl.formatMessage({ id });
  const input = useRef<HTMLTextAreaElement>(null);
  const copy = async () => {
    onStatus(''); // a second copy of the same value is announced again
    try {
      if (!navigator.clipboard?.writeText) throw new Error('no clipboard');
      await navigator.clipboard.writeText(value);
      onStatus(t(`platforms.secret.${which}.copied`));
    } catch {
      input.current?.focus();
      input.current?.select();
      onStatus(t(`platforms.secret.${which}.notCopied`));
    }
  };
  return (
    <div className="field platforms-copy-field">
      <label htmlFor={id}>{t(`platforms.secret.${which}`)}</label>
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
        <button type="button" className="button button-secondary" aria-label={t(`platforms.secret.${which}.copy`)} onClick={() => void copy()}>
          {t('platforms.secret.copy')}
        </button>
      </div>
    </div>
  );
}
