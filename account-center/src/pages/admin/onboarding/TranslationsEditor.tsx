// The field's texts in other languages, side by side with the default texts (issue 27): one
// table per language, a box per text the field has, and what each language still lacks.
// An empty box means "not translated": people see the default text there.
import { useId, useState } from 'react';
import { useIntl } from '../../../i18n/useIntl.ts';
import { LANGUAGES, DEFAULT_LANGUAGE } from '../../../i18n/languages.ts';
import { takesOptions, type Draft, type Translations } from './model.ts';

type TextKey = 'label' | 'placeholder' | 'description' | 'helpText';
type Row = { key: TextKey; text: string } | { key: 'option'; value: string; text: string };

const LANGUAGE_TAG = /^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8})*$/;

/** The texts of the draft that a language can translate (those it has), in the form's order. */
function rowsOf(draft: Draft): Row[] {
  const rows: Row[] = [{ key: 'label', text: draft.label }];
  if (draft.placeholder.trim() !== '') rows.push({ key: 'placeholder', text: draft.placeholder });
  if (draft.helpText.trim() !== '') rows.push({ key: 'helpText', text: draft.helpText });
  if (draft.description.trim() !== '') rows.push({ key: 'description', text: draft.description });
  if (takesOptions(draft.fieldType)) {
    for (const option of draft.options) if (option.value.trim() !== '') rows.push({ key: 'option', value: option.value, text: option.label || option.value });
  }
  return rows;
}

function translated(translations: Translations, language: string, row: Row): string {
  const texts = translations[language];
  if (!texts) return '';
  if (row.key === 'option') return texts.options && Object.hasOwn(texts.options, row.value) ? texts.options[row.value]! : '';
  return texts[row.key] ?? '';
}

function withText(translations: Translations, language: string, row: Row, text: string): Translations {
  const texts = { ...(translations[language] ?? {}) };
  if (row.key === 'option') texts.options = { ...(texts.options ?? {}), [row.value]: text };
  else texts[row.key] = text;
  return { ...translations, [language]: texts };
}

export function TranslationsEditor({ draft, onChange, errorFor, register }: {
  draft: Draft;
  onChange: (translations: Translations) => void;
  errorFor: (pointer: string) => string | null;
  register: (pointer: string) => (element: HTMLElement | null) => void;
}) {
  const intl = useIntl();
  const prefix = useId();
  const [adding, setAdding] = useState('');
  const [addError, setAddError] = useState<string | null>(null);
  // The account center's own languages are always offered; others once a translation names them.
  const languages = [...new Set([...LANGUAGES.filter((language) => language !== DEFAULT_LANGUAGE), ...Object.keys(draft.translations)])];
  const rows = rowsOf(draft);
  const names = new Intl.DisplayNames([intl.locale], { type: 'language', fallback: 'code' });
  const nameOf = (tag: string) => `${names.of(tag) ?? tag} (${tag})`;
  const rowLabel = (row: Row) => (row.key === 'option' ? intl.formatMessage({ id: 'admin.translations.option' }, { option: row.text }) : intl.formatMessage({ id: `admin.translations.${row.key}` }));

  const add = () => {
    const tag = adding.trim();
    let canonical: string | undefined;
    try {
      canonical = LANGUAGE_TAG.test(tag) ? Intl.getCanonicalLocales(tag)[0] : undefined;
    } catch {
      canonical = undefined;
    }
    if (!canonical) return setAddError(intl.formatMessage({ id: 'admin.translations.badTag' }));
    setAddError(null);
    setAdding('');
    if (!languages.includes(canonical)) onChange({ ...draft.translations, [canonical]: {} });
  };

  return (
    <section className="panel" aria-labelledby={`${prefix}-title`}>
      <h3 id={`${prefix}-title`}>{intl.formatMessage({ id: 'admin.translations.title' })}</h3>
      <p className="oa-muted">{intl.formatMessage({ id: 'admin.translations.intro' })}</p>
      {languages.map((language) => {
        const missing = rows.filter((row) => row.text.trim() !== '' && translated(draft.translations, language, row).trim() === '');
        const summaryId = `${prefix}-${language}-missing`;
        return (
          <div key={language} className="oa-translation" role="group" aria-labelledby={`${prefix}-${language}`} aria-describedby={summaryId}>
            <h4 id={`${prefix}-${language}`} lang={intl.locale}>{nameOf(language)}</h4>
            <p id={summaryId} className={missing.length > 0 ? 'badge badge-warning' : 'badge badge-success'}>
              {missing.length > 0
                ? intl.formatMessage({ id: 'admin.translations.missing' }, { count: missing.length, texts: intl.formatList(missing.map(rowLabel), { type: 'conjunction' }) })
                : intl.formatMessage({ id: 'admin.translations.complete' })}
            </p>
            {errorFor(`translations/${language}`) ? <p className="field-error">{errorFor(`translations/${language}`)}</p> : null}
            <div className="table-wrap">
              <table className="oa-translation-table">
                <thead>
                  <tr>
                    <th scope="col">{intl.formatMessage({ id: 'admin.translations.text' })}</th>
                    <th scope="col">{intl.formatMessage({ id: 'admin.translations.default' })}</th>
                    <th scope="col">{nameOf(language)}</th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map((row) => {
                    const pointer = row.key === 'option' ? `translations/${language}/options/${row.value}` : `translations/${language}/${row.key}`;
                    const inputId = `${prefix}-${language}-${row.key === 'option' ? `option-${row.value}` : row.key}`;
                    const error = errorFor(pointer);
                    const value = translated(draft.translations, language, row);
                    const multiline = row.key === 'description' || row.key === 'helpText';
                    const common = {
                      id: inputId,
                      lang: language,
                      value,
                      'aria-label': intl.formatMessage({ id: 'admin.translations.inputLabel' }, { text: rowLabel(row), language: nameOf(language) }),
                      'aria-invalid': error ? true : undefined,
                      'aria-describedby': error ? `${inputId}-error` : undefined,
                      placeholder: intl.formatMessage({ id: 'admin.translations.notTranslated' }),
                    };
                    return (
                      <tr key={pointer}>
                        <th scope="row">{rowLabel(row)}</th>
                        <td className="oa-translation-default">{row.text || '—'}</td>
                        <td>
                          {multiline ? (
                            <textarea {...common} ref={register(pointer)} rows={2} maxLength={row.key === 'description' ? 1000 : 500} className="oa-short-text"
                              onChange={(event) => onChange(withText(draft.translations, language, row, event.target.value))} />
                          ) : (
                            <input {...common} ref={register(pointer)} type="text" maxLength={200} autoComplete="off"
                              onChange={(event) => onChange(withText(draft.translations, language, row, event.target.value))} />
                          )}
                          {error ? <p id={`${inputId}-error`} className="field-error">{error}</p> : null}
                        </td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </div>
          </div>
        );
      })}
      <div className="oa-translation-add">
        <label htmlFor={`${prefix}-add`}>{intl.formatMessage({ id: 'admin.translations.addLabel' })}</label>
        <input id={`${prefix}-add`} type="text" value={adding} maxLength={35} autoComplete="off" spellCheck={false}
          aria-invalid={addError ? true : undefined} aria-describedby={addError ? `${prefix}-add-error` : `${prefix}-add-help`}
          onChange={(event) => setAdding(event.target.value)}
          onKeyDown={(event) => { if (event.key === 'Enter') { event.preventDefault(); add(); } }} />
        <button type="button" className="button button-secondary" onClick={add}>{intl.formatMessage({ id: 'admin.translations.add' })}</button>
        <p id={`${prefix}-add-help`} className="field-help">{intl.formatMessage({ id: 'admin.translations.addHelp' })}</p>
        {addError ? <p id={`${prefix}-add-error`} className="field-error" role="alert">{addError}</p> : null}
      </div>
    </section>
  );
}
