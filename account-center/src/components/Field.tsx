import { useId, type ReactNode } from 'react';
import { useIntl } from '../i18n/useIntl.ts';

export interface FieldProps {
  label: string;
  required?: boolean;
  /** Plain text shown under the label (a definition's description). */
  description?: string | null;
  /** Plain text shown under the input (uiConfig.helpText). */
  help?: string | null;
  error?: string | null;
  /** Column width in a form row (uiConfig.width). */
  width?: 'full' | 'half' | 'third' | null;
  /** Render the control with the ids it must carry: `id` for the label, `describedBy` for hints and errors. */
  children: (control: { id: string; describedBy: string | undefined; invalid: boolean }) => ReactNode;
  /**
   * `control` (default): a label above one input. `group`: a fieldset with a legend (a
   * checkbox group). `checkbox`: a single checkbox, its label beside it.
   */
  kind?: 'control' | 'group' | 'checkbox';
}

/**
 * One labelled form control with its hints and error, linked by aria-describedby so a
 * screen reader reads them with the input. Texts are rendered as text, never as HTML.
 */
export function Field({ label, required, description, help, error, width, kind = 'control', children }: FieldProps) {
  const intl = useIntl();
  const id = useId();
  const descriptionId = description ? `${id}-description` : undefined;
  const helpId = help ? `${id}-help` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  const describedBy = [errorId, descriptionId, helpId].filter(Boolean).join(' ') || undefined;
  const caption = (
    <>
      {label}
      {required ? <span className="required" aria-hidden="true"> *</span> : null}
      {required ? <>{' '}<span className="visually-hidden">{intl.formatMessage({ id: 'common.requiredHidden' })}</span></> : null}
    </>
  );
  const body = (
    <>
      {description ? <p id={descriptionId} className="field-description">{description}</p> : null}
      {error ? <p id={errorId} className="field-error" role="alert">{error}</p> : null}
      {children({ id, describedBy, invalid: Boolean(error) })}
      {help ? <p id={helpId} className="field-help">{help}</p> : null}
    </>
  );
  const className = `field field-${width ?? 'full'}${error ? ' field-invalid' : ''}`;
  if (kind === 'checkbox') {
    return (
      <div className={className}>
        {description ? <p id={descriptionId} className="field-description">{description}</p> : null}
        {error ? <p id={errorId} className="field-error" role="alert">{error}</p> : null}
        <label className="choice" htmlFor={id}>
          {children({ id, describedBy, invalid: Boolean(error) })}
          <span>{caption}</span>
        </label>
        {help ? <p id={helpId} className="field-help">{help}</p> : null}
      </div>
    );
  }
  if (kind === 'group') {
    return (
      <fieldset className={className} aria-describedby={describedBy}>
        <legend>{caption}</legend>
        {body}
      </fieldset>
    );
  }
  return (
    <div className={className}>
      <label htmlFor={id}>{caption}</label>
      {body}
    </div>
  );
}
