import { useIntl } from 'react-intl';
import { Field } from '../../../components/Field.tsx';
import {
  allowedTypes, NO_PLACEHOLDER_TYPES, PROFILE_PROPERTIES, profileProperty, propertyLabel, takesLengths, takesRange, typeLabel, withProfileProperty,
  withSource, withType, SHARING_RULES, type Draft, type FieldType, type ProfileProperty, type Sharing, type Width,
} from './model.ts';

// The sections of the field form (src/pages/admin/onboarding/FieldEditor.tsx): each renders
// its inputs from the draft and reports changes through `change`, naming the pointers whose
// errors the change clears. The form keeps the state, the saving and the error summary.

/** What every section gets from the form. */
export interface SectionProps {
  /** The form's id prefix (useId), for the section headings and radio groups. */
  prefix: string;
  draft: Draft;
  change: (pointer: string | readonly string[], next: Draft) => void;
  /** The error beside an input, as a sentence; null when there is none. */
  err: (pointer: string) => string | null;
  /** The ref of an input, so an error can take the focus to it. */
  register: (pointer: string) => (element: HTMLElement | null) => void;
}

function useT() {
  const intl = useIntl();
  return { intl, t: (id: string, values?: Record<string, string | number>) => intl.formatMessage({ id }, values) };
}

/** Key, label, type, sort order and whether it is required. */
export function BasicsSection({ prefix, draft, change, err, register, creating }: SectionProps & { creating: boolean }) {
  const { intl, t } = useT();
  const bound = draft.source === 'PROFILE_FIELD' ? profileProperty(draft.profileField) : undefined;
  const types = allowedTypes(draft);
  return (
    <section className="panel" aria-labelledby={`${prefix}-basics`}>
      <h3 id={`${prefix}-basics`}>{t('schema.editor.theField')}</h3>
      <div className="form-grid">
        <Field label={t('schema.pointer.fieldKey')} required={creating} error={err('fieldKey')}
          description={creating ? t('schema.editor.keyHelp', { pattern: '^[A-Za-z][A-Za-z0-9_]{1,63}$' }) : t('schema.editor.keyFixed')}>
          {({ id, describedBy, invalid }) => (
            <input id={id} ref={register('fieldKey')} type="text" value={draft.fieldKey} readOnly={!creating} spellCheck={false} autoComplete="off" maxLength={64}
              className={creating ? undefined : 'oa-readonly'} aria-describedby={describedBy} aria-invalid={invalid || undefined}
              onChange={(event) => change('fieldKey', { ...draft, fieldKey: event.target.value })} />
          )}
        </Field>
        <Field label={t('schema.pointer.label')} required error={err('label')} description={t('schema.editor.labelHelp')}>
          {({ id, describedBy, invalid }) => (
            <input id={id} ref={register('label')} type="text" value={draft.label} maxLength={200} autoComplete="off"
              aria-describedby={describedBy} aria-invalid={invalid || undefined}
              onChange={(event) => change('label', { ...draft, label: event.target.value })} />
          )}
        </Field>
        <Field label={t('schema.pointer.fieldType')} error={err('fieldType')}
          description={bound
            ? t('schema.editor.typeBound', { property: propertyLabel(intl, bound.property), type: draft.fieldType })
            : t('schema.editor.typeHelp', { type: draft.fieldType })}>
          {({ id, describedBy, invalid }) => (
            <select id={id} ref={register('fieldType')} value={draft.fieldType} aria-describedby={describedBy} aria-invalid={invalid || undefined}
              onChange={(event) => change(['fieldType', 'options', 'validation', 'validation/minLength', 'validation/maxLength', 'validation/min', 'validation/max'],
                withType(draft, event.target.value as FieldType))}>
              {/* People's words only: with the API's name too the longest option was cut off on a phone. */}
              {types.map((entry) => <option key={entry.type} value={entry.type}>{typeLabel(intl, entry.type)}</option>)}
            </select>
          )}
        </Field>
        <Field label={t('schema.pointer.sortOrder')} width="half" required error={err('sortOrder')} description={t('schema.editor.sortOrderHelp')}>
          {({ id, describedBy, invalid }) => (
            <input id={id} ref={register('sortOrder')} type="text" inputMode="numeric" value={draft.sortOrder} autoComplete="off"
              aria-describedby={describedBy} aria-invalid={invalid || undefined}
              onChange={(event) => change('sortOrder', { ...draft, sortOrder: event.target.value })} />
          )}
        </Field>
        <Field label={t('schema.pointer.required')} kind="checkbox" error={err('required')} description={t('schema.editor.requiredHelp')}>
          {({ id, describedBy, invalid }) => (
            <input id={id} ref={register('required')} type="checkbox" checked={draft.required} aria-describedby={describedBy} aria-invalid={invalid || undefined}
              onChange={(event) => change('required', { ...draft, required: event.target.checked })} />
          )}
        </Field>
      </div>
    </section>
  );
}

/** Where the value is kept: the platform's own field, or a property of the person's profile. */
export function SourceSection({ prefix, draft, change, err, register, boundElsewhere }: SectionProps & { boundElsewhere: ReadonlyMap<ProfileProperty, string> }) {
  const { intl, t } = useT();
  return (
    <section className="panel" aria-labelledby={`${prefix}-source`}>
      <h3 id={`${prefix}-source`}>{t('schema.pointer.source')}</h3>
      <div className="form-grid">
        <fieldset className={`field oa-source${err('source') ? ' field-invalid' : ''}`} aria-describedby={err('source') ? `${prefix}-source-error` : undefined}>
          <legend className="visually-hidden">{t('schema.pointer.source')}</legend>
          {err('source') ? <p id={`${prefix}-source-error`} className="field-error" role="alert">{err('source')}</p> : null}
          <label className="choice">
            <input type="radio" name={`${prefix}-source`} ref={register('source')} checked={draft.source === 'CUSTOM_FIELD'}
              onChange={() => change(['source', 'profileField'], withSource(draft, 'CUSTOM_FIELD'))} />
            <span>{intl.formatMessage({ id: 'schema.editor.sourceCustom' }, { strong: (chunks) => <strong>{chunks}</strong> })}</span>
          </label>
          <label className="choice">
            <input type="radio" name={`${prefix}-source`} checked={draft.source === 'PROFILE_FIELD'}
              onChange={() => change(['source', 'profileField'], withSource(draft, 'PROFILE_FIELD'))} />
            <span>{intl.formatMessage({ id: 'schema.editor.sourceProfile' }, { strong: (chunks) => <strong>{chunks}</strong> })}</span>
          </label>
        </fieldset>
        {draft.source === 'PROFILE_FIELD' ? (
          <Field label={t('schema.pointer.profileField')} required error={err('profileField')}
            description={t('schema.editor.propertyHelp')}>
            {({ id, describedBy, invalid }) => (
              <select id={id} ref={register('profileField')} value={draft.profileField ?? ''} aria-describedby={describedBy} aria-invalid={invalid || undefined}
                onChange={(event) => change(['profileField', 'fieldType'], withProfileProperty(draft, (event.target.value || null) as ProfileProperty | null))}>
                <option value="">{t('schema.editor.chooseProperty')}</option>
                <ProfileOptions fieldType={draft.fieldType} boundElsewhere={boundElsewhere} />
              </select>
            )}
          </Field>
        ) : null}
        {draft.source === 'PROFILE_FIELD' ? (
          // Issue 36: whether a value the person gave another platform is used here.
          <Field label={t('schema.pointer.sharing')} error={err('sharing')} description={t('schema.editor.sharingHelp')}>
            {({ id, describedBy, invalid }) => (
              <select id={id} ref={register('sharing')} value={draft.sharing} aria-describedby={describedBy} aria-invalid={invalid || undefined}
                onChange={(event) => change('sharing', { ...draft, sharing: event.target.value as Sharing })}>
                {SHARING_RULES.map((rule) => <option key={rule} value={rule}>{t(`schema.editor.sharing.${rule}`)}</option>)}
              </select>
            )}
          </Field>
        ) : null}
      </div>
    </section>
  );
}

/** Lengths for text types, a range for numbers; nothing for the other types. */
export function LimitsSection({ prefix, draft, change, err, register }: SectionProps) {
  const { t } = useT();
  return (
    <>
        {takesLengths(draft.fieldType) || takesRange(draft.fieldType) ? (
          <section className="panel" aria-labelledby={`${prefix}-limits`}>
            <h3 id={`${prefix}-limits`}>{t('schema.pointer.validation')}</h3>
            <p className="oa-muted">{t('schema.editor.limitsHelp')}</p>
            <div className="form-grid">
              {takesLengths(draft.fieldType) ? (
                <>
                  <NumberBox label={t('schema.pointer.validation/minLength')} pointer="validation/minLength" value={draft.minLength} error={err('validation/minLength') ?? err('validation')} register={register}
                    help={t('schema.editor.inCharacters')} onChange={(value) => change(['validation/minLength', 'validation'], { ...draft, minLength: value })} />
                  <NumberBox label={t('schema.pointer.validation/maxLength')} pointer="validation/maxLength" value={draft.maxLength} error={err('validation/maxLength')} register={register}
                    help={t('schema.editor.inCharacters')} onChange={(value) => change('validation/maxLength', { ...draft, maxLength: value })} />
                </>
              ) : (
                <>
                  <NumberBox label={t('schema.pointer.validation/min')} pointer="validation/min" value={draft.min} error={err('validation/min') ?? err('validation')} register={register}
                    decimal onChange={(value) => change(['validation/min', 'validation'], { ...draft, min: value })} />
                  <NumberBox label={t('schema.pointer.validation/max')} pointer="validation/max" value={draft.max} error={err('validation/max')} register={register}
                    decimal onChange={(value) => change('validation/max', { ...draft, max: value })} />
                </>
              )}
            </div>
          </section>
        ) : null}
    </>
  );
}

/** Width, placeholder, help text and description. */
export function PresentationSection({ prefix, draft, change, err, register }: SectionProps) {
  const { intl, t } = useT();
  return (
    <section className="panel" aria-labelledby={`${prefix}-presentation`}>
      <h3 id={`${prefix}-presentation`}>{t('schema.editor.presentation')}</h3>
      <div className="form-grid">
        <Field label={t('schema.pointer.uiConfig/width')} width="half" error={err('uiConfig/width') ?? err('uiConfig')} description={t('schema.editor.widthHelp')}>
          {({ id, describedBy, invalid }) => (
            <select id={id} ref={register('uiConfig/width')} value={draft.width} aria-describedby={describedBy} aria-invalid={invalid || undefined}
              onChange={(event) => change(['uiConfig/width', 'uiConfig'], { ...draft, width: event.target.value as Width | '' })}>
              <option value="">{t('schema.width.default')}</option>
              {draft.width === 'full' ? <option value="full">{t('schema.width.full')}</option> : null}
              <option value="half">{t('schema.width.half')}</option>
              <option value="third">{t('schema.width.third')}</option>
            </select>
          )}
        </Field>
        <Field label={t('schema.pointer.placeholder')} width="half" error={err('placeholder')}
          description={NO_PLACEHOLDER_TYPES.includes(draft.fieldType)
            ? t('schema.editor.placeholderNotShown', { type: typeLabel(intl, draft.fieldType) })
            : t(draft.fieldType === 'SELECT' ? 'schema.editor.placeholderSelect' : 'schema.editor.placeholderHelp')}>
          {({ id, describedBy, invalid }) => (
            <input id={id} ref={register('placeholder')} type="text" value={draft.placeholder} maxLength={200} autoComplete="off"
              aria-describedby={describedBy} aria-invalid={invalid || undefined}
              onChange={(event) => change('placeholder', { ...draft, placeholder: event.target.value })} />
          )}
        </Field>
        <Field label={t('schema.pointer.uiConfig/helpText')} error={err('uiConfig/helpText')} description={t('schema.editor.helpTextHelp')}>
          {({ id, describedBy, invalid }) => (
            <textarea id={id} ref={register('uiConfig/helpText')} value={draft.helpText} maxLength={500} rows={2} className="oa-short-text"
              aria-describedby={describedBy} aria-invalid={invalid || undefined}
              onChange={(event) => change(['uiConfig/helpText', 'uiConfig'], { ...draft, helpText: event.target.value })} />
          )}
        </Field>
        <Field label={t('schema.pointer.description')} error={err('description')} description={t('schema.editor.descriptionHelp')}>
          {({ id, describedBy, invalid }) => (
            <textarea id={id} ref={register('description')} value={draft.description} maxLength={1000} rows={3} className="oa-short-text"
              aria-describedby={describedBy} aria-invalid={invalid || undefined}
              onChange={(event) => change('description', { ...draft, description: event.target.value })} />
          )}
        </Field>
      </div>
    </section>
  );
}

/** The profile properties: those that fit the current type first; the others change it. */
function ProfileOptions({ fieldType, boundElsewhere }: { fieldType: FieldType; boundElsewhere: ReadonlyMap<ProfileProperty, string> }) {
  const fitting = PROFILE_PROPERTIES.filter((entry) => entry.type === fieldType);
  const others = PROFILE_PROPERTIES.filter((entry) => entry.type !== fieldType);
  const intl = useIntl();
  const option = (entry: (typeof PROFILE_PROPERTIES)[number]) => {
    const other = boundElsewhere.get(entry.property);
    return (
      <option key={entry.property} value={entry.property} disabled={other !== undefined}>
        {intl.formatMessage(
          { id: other ? 'schema.editor.propertyUsed' : 'schema.editor.propertyOption' },
          { label: propertyLabel(intl, entry.property), property: entry.property, field: other ?? '' },
        )}
      </option>
    );
  };
  return (
    <>
      {fitting.length > 0 ? <optgroup label={intl.formatMessage({ id: 'schema.editor.fitType' }, { type: typeLabel(intl, fieldType) })}>{fitting.map(option)}</optgroup> : null}
      {others.length > 0 ? <optgroup label={intl.formatMessage({ id: fitting.length > 0 ? 'schema.editor.otherProperties' : 'schema.editor.properties' })}>{others.map(option)}</optgroup> : null}
    </>
  );
}

function NumberBox({ label, pointer, value, error, help, decimal, register, onChange }: {
  label: string;
  pointer: string;
  value: string;
  error: string | null;
  help?: string;
  decimal?: boolean;
  register: (pointer: string) => (element: HTMLElement | null) => void;
  onChange: (value: string) => void;
}) {
  return (
    <Field label={label} width="half" error={error} help={help}>
      {({ id, describedBy, invalid }) => (
        <input id={id} ref={register(pointer)} type="text" inputMode={decimal ? 'decimal' : 'numeric'} value={value} autoComplete="off"
          aria-describedby={describedBy} aria-invalid={invalid || undefined} onChange={(event) => onChange(event.target.value)} />
      )}
    </Field>
  );
}
