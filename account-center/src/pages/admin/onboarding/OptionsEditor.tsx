import { useEffect, useState, type ReactNode } from 'react';
import { useIntl } from 'react-intl';
import { newOption, type OptionDraft } from './model.ts';

/**
 * The choices of a SELECT or MULTI_SELECT field: rows of value (stored) and label (shown),
 * in order, to add, remove and move. Errors come by the gateway's pointers (`options`,
 * `options/2`, `options/2/value`) and show beside their row. The focus follows the row a
 * button acts on, so the list can be edited from the keyboard alone.
 */
export function OptionsEditor({ idPrefix, options, errors, onChange, register }: {
  idPrefix: string;
  options: OptionDraft[];
  /** By pointer below /body/. */
  errors: ReadonlyMap<string, string>;
  onChange: (options: OptionDraft[], structural: boolean) => void;
  /** Lets the form find an input by its pointer (for the error summary and the first error's focus). */
  register: (pointer: string) => (element: HTMLElement | null) => void;
}) {
  const [focusNext, setFocusNext] = useState<string | null>(null);
  const intl = useIntl();
  // A visible word and, for screen readers, which option it is about: one message per control.
  const hidden = (chunks: ReactNode[]) => <span className="visually-hidden">{chunks}</span>;
  const say = (id: string, number?: number) => intl.formatMessage({ id }, { number, hidden });
  useEffect(() => {
    if (!focusNext) return;
    const element = document.getElementById(focusNext);
    if (element && !(element as HTMLButtonElement).disabled) element.focus();
    else document.getElementById(`${idPrefix}-add`)?.focus();
    setFocusNext(null);
  }, [focusNext, idPrefix]);

  const groupError = errors.get('options');
  const groupErrorId = `${idPrefix}-error`;
  const update = (index: number, change: Partial<OptionDraft>) =>
    onChange(options.map((option, position) => (position === index ? { ...option, ...change } : option)), false);
  const move = (index: number, direction: -1 | 1) => {
    const next = [...options];
    const [moved] = next.splice(index, 1);
    if (!moved) return;
    next.splice(index + direction, 0, moved);
    onChange(next, true);
    const edge = index + direction === 0 || index + direction === next.length - 1;
    setFocusNext(`${idPrefix}-${moved.id}-${edge ? (direction < 0 ? 'down' : 'up') : direction < 0 ? 'up' : 'down'}`);
  };
  const remove = (index: number) => {
    const next = options.filter((_, position) => position !== index);
    onChange(next, true);
    const neighbour = next[index] ?? next[index - 1];
    setFocusNext(neighbour ? `${idPrefix}-${neighbour.id}-value` : `${idPrefix}-add`);
  };
  const add = () => {
    const option = newOption();
    onChange([...options, option], true);
    setFocusNext(`${idPrefix}-${option.id}-value`);
  };

  return (
    <fieldset className={`field oa-options${groupError ? ' field-invalid' : ''}`} aria-describedby={[groupError ? groupErrorId : null, `${idPrefix}-hint`].filter(Boolean).join(' ')}>
      <legend>
        {say('schema.options.legend')}<span className="required" aria-hidden="true"> *</span><span className="visually-hidden"> {intl.formatMessage({ id: 'common.requiredHidden' })}</span>
      </legend>
      <p id={`${idPrefix}-hint`} className="field-description">{say('schema.options.hint')}</p>
      {groupError ? <p id={groupErrorId} className="field-error" role="alert">{groupError}</p> : null}
      {options.length === 0 ? <p className="oa-muted" ref={register('options')} tabIndex={-1}>{say('schema.options.none')}</p> : (
        <ol className="oa-option-list">
          {options.map((option, index) => {
            const at = `options/${index}`;
            const rowError = errors.get(at);
            const valueError = errors.get(`${at}/value`);
            const labelError = errors.get(`${at}/label`);
            const id = `${idPrefix}-${option.id}`;
            const number = index + 1;
            return (
              <li key={option.id} className={`oa-option${rowError ? ' field-invalid' : ''}`}>
                {rowError ? <p id={`${id}-error`} className="field-error oa-option-error" role="alert">{rowError}</p> : null}
                <div className={`field oa-option-input${valueError ? ' field-invalid' : ''}`}>
                  <label htmlFor={`${id}-value`}>{say('schema.options.value', number)}</label>
                  {valueError ? <p id={`${id}-value-error`} className="field-error" role="alert">{valueError}</p> : null}
                  <input id={`${id}-value`} ref={register(`${at}/value`)} type="text" value={option.value}
                    spellCheck={false} autoComplete="off"
                    aria-describedby={[valueError ? `${id}-value-error` : null, rowError ? `${id}-error` : null].filter(Boolean).join(' ') || undefined}
                    aria-invalid={valueError || rowError ? true : undefined}
                    onChange={(event) => update(index, { value: event.target.value })} />
                </div>
                <div className={`field oa-option-input${labelError ? ' field-invalid' : ''}`}>
                  <label htmlFor={`${id}-label`}>{say('schema.options.label', number)}</label>
                  {labelError ? <p id={`${id}-label-error`} className="field-error" role="alert">{labelError}</p> : null}
                  <input id={`${id}-label`} ref={register(`${at}/label`)} type="text" value={option.label} autoComplete="off"
                    aria-describedby={labelError ? `${id}-label-error` : undefined} aria-invalid={labelError ? true : undefined}
                    onChange={(event) => update(index, { label: event.target.value })} />
                </div>
                <div className="oa-option-actions">
                  <button id={`${id}-up`} type="button" className="button button-secondary oa-small" disabled={index === 0} onClick={() => move(index, -1)}>
                    {say('schema.options.up', number)}
                  </button>
                  <button id={`${id}-down`} type="button" className="button button-secondary oa-small" disabled={index === options.length - 1} onClick={() => move(index, 1)}>
                    {say('schema.options.down', number)}
                  </button>
                  <button id={`${id}-remove`} type="button" className="button button-secondary oa-small oa-danger-text" onClick={() => remove(index)}>
                    {say('schema.options.remove', number)}
                  </button>
                </div>
              </li>
            );
          })}
        </ol>
      )}
      <button id={`${idPrefix}-add`} type="button" className="button button-secondary" onClick={add}>{say('schema.options.add')}</button>
    </fieldset>
  );
}
