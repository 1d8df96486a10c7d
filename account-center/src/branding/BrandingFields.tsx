import { useId } from 'react';
import { useIntl } from 'react-intl';
import { HEX_COLOR_PATTERN, primaryColorContrast } from '../../../src/domain/contrast.ts';

/** One language's name as edited (ids keep React's rows stable while tags change). */
export interface NameRow {
  id: number;
  language: string;
  name: string;
}

/** BCP 47 in the shape the contract allows (PlatformDisplayNames). */
const LANGUAGE_TAG = /^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/;

/** The rows' problems by row id: a malformed tag, or a tag without a name. */
export function namesErrors(rows: readonly NameRow[]): Map<number, 'branding.names.languageInvalid' | 'branding.names.nameMissing'> {
  const errors = new Map<number, 'branding.names.languageInvalid' | 'branding.names.nameMissing'>();
  for (const row of rows) {
    if (!LANGUAGE_TAG.test(row.language.trim())) errors.set(row.id, 'branding.names.languageInvalid');
    else if (row.name.trim() === '') errors.set(row.id, 'branding.names.nameMissing');
  }
  return errors;
}

/**
 * The colour as a code and a picker, with its contrast live: computed by the gateway's own
 * WCAG 2.x module (src/domain/contrast.ts), the one the registry refuses by.
 */
export function BrandingColorField({ value, onChange, error }: { value: string; onChange: (value: string) => void; error: string | null }) {
  const intl = useIntl();
  const id = useId();
  const contrast = HEX_COLOR_PATTERN.test(value) ? primaryColorContrast(value) : null;
  const describedBy = [`${id}-hint`, contrast ? `${id}-contrast` : null, error ? `${id}-error` : null].filter(Boolean).join(' ');
  return (
    <fieldset>
      <legend>{intl.formatMessage({ id: 'branding.color.legend' })}</legend>
      <p className="hint" id={`${id}-hint`}>{intl.formatMessage({ id: 'branding.color.hint' })}</p>
      <label htmlFor={`${id}-code`}>{intl.formatMessage({ id: 'branding.color.label' })}</label>
      <div className="branding-color-row">
        <input id={`${id}-code`} type="text" value={value} maxLength={7} spellCheck={false} autoComplete="off"
          aria-invalid={error ? true : undefined} aria-describedby={describedBy} onChange={(event) => onChange(event.target.value.trim())} />
        <input type="color" aria-label={intl.formatMessage({ id: 'branding.color.picker' })} value={HEX_COLOR_PATTERN.test(value) ? value.toLowerCase() : '#2457d6'}
          onChange={(event) => onChange(event.target.value)} />
        {value !== '' ? (
          <button type="button" className="button button-secondary" onClick={() => onChange('')}>{intl.formatMessage({ id: 'branding.color.clear' })}</button>
        ) : null}
      </div>
      {value === '' ? <p className="branding-contrast">{intl.formatMessage({ id: 'branding.color.none' })}</p> : null}
      {contrast ? (
        <p className="branding-contrast" id={`${id}-contrast`} aria-live="polite">
          {intl.formatMessage({ id: 'branding.color.contrast' }, { againstButton: contrast.againstButtonText, againstPage: contrast.againstPage })}
          {contrast.passes ? null : <><br /><strong>{intl.formatMessage({ id: 'branding.color.contrastTooLow' })}</strong></>}
        </p>
      ) : null}
      {error ? <p className="field-error" id={`${id}-error`}>{error}</p> : null}
    </fieldset>
  );
}

let nextRowId = 1000;

export function BrandingNamesField({ rows, onChange, defaultName, errors }: {
  rows: NameRow[];
  onChange: (rows: NameRow[]) => void;
  defaultName: string;
  errors: Map<number, string>;
}) {
  const intl = useIntl();
  const id = useId();
  const update = (rowId: number, change: Partial<NameRow>) => onChange(rows.map((row) => (row.id === rowId ? { ...row, ...change } : row)));
  return (
    <fieldset>
      <legend>{intl.formatMessage({ id: 'branding.names.legend' })}</legend>
      <p className="hint">{intl.formatMessage({ id: 'branding.names.hint' }, { platform: defaultName })}</p>
      {rows.length === 0 ? <p>{intl.formatMessage({ id: 'branding.names.empty' })}</p> : null}
      <ul className="branding-names">
        {rows.map((row) => {
          const error = errors.get(row.id);
          const errorId = `${id}-${row.id}-error`;
          return (
            <li key={row.id}>
              <div>
                <label htmlFor={`${id}-${row.id}-language`}>{intl.formatMessage({ id: 'branding.names.language' })}</label>
                <input id={`${id}-${row.id}-language`} type="text" value={row.language} maxLength={35} autoComplete="off" spellCheck={false}
                  aria-invalid={error === 'branding.names.languageInvalid' ? true : undefined} aria-describedby={error ? errorId : undefined}
                  onChange={(event) => update(row.id, { language: event.target.value })} />
              </div>
              <div>
                <label htmlFor={`${id}-${row.id}-name`}>{intl.formatMessage({ id: 'branding.names.name' })}</label>
                <input id={`${id}-${row.id}-name`} type="text" value={row.name} maxLength={200}
                  aria-invalid={error === 'branding.names.nameMissing' ? true : undefined} aria-describedby={error ? errorId : undefined}
                  onChange={(event) => update(row.id, { name: event.target.value })} />
              </div>
              <button type="button" className="button button-secondary" onClick={() => onChange(rows.filter((other) => other.id !== row.id))}>
                {intl.formatMessage({ id: 'branding.names.remove' }, { language: row.language || '…' })}
              </button>
              {error ? <p className="field-error" id={errorId}>{intl.formatMessage({ id: error })}</p> : null}
            </li>
          );
        })}
      </ul>
      <p className="actions">
        <button type="button" className="button button-secondary" onClick={() => onChange([...rows, { id: nextRowId++, language: '', name: '' }])}>
          {intl.formatMessage({ id: 'branding.names.add' })}
        </button>
      </p>
    </fieldset>
  );
}
