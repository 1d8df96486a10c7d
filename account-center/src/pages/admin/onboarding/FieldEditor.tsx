import { useCallback, useEffect, useId, useMemo, useRef, useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { ApiProblem } from '../../../api.ts';
import { ErrorSummary } from '../../../components/ErrorSummary.tsx';
import { Field } from '../../../components/Field.tsx';
import { LoadState } from '../../../components/LoadState.tsx';
import { Notice } from '../../../components/Notice.tsx';
import { PageTitle } from '../../../components/PageTitle.tsx';
import { hasPermission, useSession } from '../../../session.tsx';
import { createField, updateField } from './gateway.ts';
import { TranslationsEditor } from './TranslationsEditor.tsx';
import { FormPreview } from './FormPreview.tsx';
import { ImpactDialog } from './ImpactDialog.tsx';
import {
  allowedTypes, createBody, draftOf, emptyDraft, nextSortOrder, NO_PLACEHOLDER_TYPES, patchBody, pointerLabel, pointerRank,
  PROFILE_PROPERTIES, previewDefinition, profileProperty, settingsOf, takesLengths, takesOptions, takesRange, typeLabel, withProfileProperty,
  withSource, withType, type ChangePreview, type CreateBody, type Definition, type Draft, type FieldType, type FormErrors, type ProfileProperty,
  type UpdateBody, type Width,
} from './model.ts';
import { OptionsEditor } from './OptionsEditor.tsx';
import { ADMIN_BASE, platformPath } from './paths.ts';
import { READ_ONLY_TEXT, type FlashState } from './SchemaPage.tsx';
import { useFieldList } from './usePlatform.ts';

/**
 * /admin/onboarding/{platformKey}/new and …/fields/{fieldKey}: the field form beside a live
 * preview (read only: the field's settings and the preview).
 */
export function FieldEditorPage({ platformKey, fieldKey }: { platformKey: string; fieldKey: string | null }) {
  const { me } = useSession();
  const canWrite = hasPermission(me, 'onboarding:schema:write');
  const { list, error, reload } = useFieldList(platformKey, true);
  const stored = fieldKey === null ? null : list?.items.find((field) => field.fieldKey === fieldKey) ?? null;
  const title = fieldKey === null ? 'Add a field' : stored ? `${canWrite ? 'Edit' : 'Field'} “${stored.label}”` : 'Field';
  return (
    <>
      <nav aria-label="Breadcrumb" className="oa-breadcrumb">
        <ol>
          <li><Link to={ADMIN_BASE}>Onboarding forms</Link></li>
          <li><Link to={platformPath(platformKey)}>{platformKey}</Link></li>
          <li><span aria-current="page">{fieldKey === null ? 'New field' : fieldKey}</span></li>
        </ol>
      </nav>
      <PageTitle>{title}</PageTitle>
      <LoadState loading={list === null} error={list === null ? error : null} onRetry={() => void reload()} what="the form">
        {list && fieldKey !== null && !stored ? (
          <div className="load-error" role="alert">
            <p><strong>{`This platform has no field ${fieldKey}.`}</strong></p>
            <p><Link to={platformPath(platformKey)}>Back to the form of {platformKey}</Link></p>
          </div>
        ) : list && fieldKey === null && !canWrite ? (
          <Notice title="Read only">{READ_ONLY_TEXT}</Notice>
        ) : list && !canWrite && stored ? (
          <FieldDetails field={stored} />
        ) : list ? (
          <FieldForm key={stored?.fieldKey ?? 'new'} platformKey={platformKey} stored={stored} fields={list.items} />
        ) : null}
      </LoadState>
    </>
  );
}

/** The gateway's message, as a sentence beside its input (option numbers counted from 1, as the form shows them). */
export function besideText(pointer: string, message: string): string {
  let text = pointer.startsWith('options') ? message.replace(/\boption (\d+)\b/g, (_, number: string) => `option ${Number(number) + 1}`) : message;
  text = text.charAt(0).toUpperCase() + text.slice(1);
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

interface Failure {
  message: string;
  errors: FormErrors;
}

/** The form of a new field (`stored` null) or of an existing one. */
export function FieldForm({ platformKey, stored, fields }: { platformKey: string; stored: Definition | null; fields: readonly Definition[] }) {
  const { api } = useSession();
  const navigate = useNavigate();
  const prefix = useId();
  const creating = stored === null;
  const [draft, setDraft] = useState<Draft>(() => (stored ? draftOf(stored) : emptyDraft(nextSortOrder(fields))));
  const [errors, setErrors] = useState<FormErrors>(new Map());
  const [failure, setFailure] = useState<Failure | null>(null);
  const [attempt, setAttempt] = useState(0);
  const [busy, setBusy] = useState(false);
  const [pending, setPending] = useState<{ body: CreateBody | UpdateBody; preview: ChangePreview } | null>(null);
  const [wholeFormOpen, setWholeFormOpen] = useState(false);
  const elements = useRef(new Map<string, HTMLElement>());

  const register = useCallback((pointer: string) => (element: HTMLElement | null) => {
    if (element) elements.current.set(pointer, element);
    else if (elements.current.get(pointer) && !elements.current.get(pointer)?.isConnected) elements.current.delete(pointer);
  }, []);
  const elementFor = useCallback((pointer: string): HTMLElement | null => {
    const map = elements.current;
    const found = map.get(pointer) ?? map.get(`${pointer}/value`) ?? [...map.entries()].find(([key]) => key.startsWith(`${pointer}/`))?.[1];
    return found?.isConnected ? found : null;
  }, []);

  // After a refused save, the first error on screen takes the focus (the summary above lists
  // them all and is announced). After the summary's own focus, which runs in the same commit.
  useEffect(() => {
    if (attempt === 0 || !failure) return;
    const first = [...failure.errors.keys()].sort((a, b) => pointerRank(a) - pointerRank(b)).map(elementFor).find(Boolean);
    if (!first) return;
    const timer = window.setTimeout(() => first.focus());
    return () => window.clearTimeout(timer);
  }, [attempt, failure, elementFor]);

  const { settings, errors: numberErrors } = useMemo(() => settingsOf(draft), [draft]);
  const preview = useMemo(() => previewDefinition(draft, settings), [draft, settings]);
  const wholeForm = useMemo(() => {
    const others = fields.filter((field) => !field.archived && field.fieldKey !== stored?.fieldKey);
    if (stored?.archived) return others;
    const mine = { ...preview, fieldKey: stored?.fieldKey ?? '\u0000new', sortOrder: settings.sortOrder };
    return [...others, mine].sort((a, b) => a.sortOrder - b.sortOrder || (a.fieldKey < b.fieldKey ? -1 : a.fieldKey > b.fieldKey ? 1 : 0));
  }, [fields, stored, preview, settings.sortOrder]);
  const boundElsewhere = useMemo(() => {
    const bound = new Map<ProfileProperty, string>();
    for (const field of fields) if (!field.archived && field.profileField && field.fieldKey !== stored?.fieldKey) bound.set(field.profileField, field.fieldKey);
    return bound;
  }, [fields, stored]);

  const change = (pointer: string | readonly string[], next: Draft) => {
    setDraft(next);
    const pointers = typeof pointer === 'string' ? [pointer] : pointer;
    if (pointers.some((item) => errors.has(item))) {
      setErrors((current) => {
        const copy = new Map(current);
        for (const item of pointers) copy.delete(item);
        return copy;
      });
    }
  };

  const refuse = (message: string, found: FormErrors) => {
    setErrors(found);
    setFailure({ message, errors: found });
    setAttempt((count) => count + 1);
  };

  const refuseProblem = (problem: unknown) => {
    if (!(problem instanceof ApiProblem)) {
      refuse(problem instanceof Error ? problem.message : 'The change could not be made.', new Map());
      return;
    }
    const found: FormErrors = problem.fieldErrors('/body/');
    if (problem.problem?.code === 'CONFLICT' && creating) {
      found.set('fieldKey', problem.problem.detail ?? 'This platform already has a field with this key.');
      refuse('This platform already has a field with this key. Choose another key.', found);
    } else if (problem.status === 400 && found.size > 0) {
      refuse(found.size === 1 ? 'The gateway refused the field: correct the problem below.' : `The gateway refused the field: correct the ${found.size} problems below.`, found);
    } else if (problem.status === 403) {
      refuse(`You may not change this form. ${problem.message}`, found);
    } else {
      refuse(problem.message, found);
    }
  };

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (busy) return;
    if (numberErrors.size > 0) {
      refuse(numberErrors.size === 1 ? 'Correct the problem below.' : `Correct the ${numberErrors.size} problems below.`, new Map(numberErrors));
      return;
    }
    const body = creating ? createBody(draft, settings) : patchBody(stored, settings);
    if (!creating && Object.keys(body).length === 0) {
      // Nothing differs from the stored definition: a PATCH needs one property, and would change nothing.
      setPending({ body, preview: { dryRun: true, changed: false, changedFields: [], field: stored, requirementVersion: 0, reopenedUsers: 0 } });
      return;
    }
    setBusy(true);
    setFailure(null);
    try {
      const answer = creating
        ? await createField(api, platformKey, body as CreateBody, true)
        : await updateField(api, platformKey, stored.fieldKey, body as UpdateBody, true);
      setErrors(new Map());
      setPending({ body, preview: answer });
    } catch (problem) {
      refuseProblem(problem);
    } finally {
      setBusy(false);
    }
  }

  async function confirm() {
    if (!pending) return;
    setBusy(true);
    try {
      const saved = creating
        ? await createField(api, platformKey, pending.body as CreateBody, false)
        : await updateField(api, platformKey, stored.fieldKey, pending.body as UpdateBody, false);
      const state: FlashState = { notice: creating ? `The field “${saved.label}” was added.` : `The field “${saved.label}” was saved.` };
      navigate(platformPath(platformKey), { state });
    } catch (problem) {
      setPending(null);
      setBusy(false);
      refuseProblem(problem);
    }
  }

  const summary = failure
    ? [...failure.errors.entries()]
      .sort(([a], [b]) => pointerRank(a) - pointerRank(b))
      .map(([pointer, message]) => ({ inputId: elementFor(pointer)?.id ?? `${prefix}-label`, label: pointerLabel(pointer), message: besideText(pointer, message).replace(/\.$/, '') }))
    : [];
  const err = (pointer: string) => {
    const message = errors.get(pointer);
    return message ? besideText(pointer, message) : null;
  };
  const bound = draft.source === 'PROFILE_FIELD' ? profileProperty(draft.profileField) : undefined;
  const types = allowedTypes(draft);

  return (
    <div className="oa-editor">
      <form className="oa-editor-form" onSubmit={submit} noValidate aria-labelledby={`${prefix}-form-title`}>
        <h2 id={`${prefix}-form-title`} className="visually-hidden">{creating ? 'The new field' : 'The field'}</h2>
        {failure ? <ErrorSummary message={failure.message} errors={summary} /> : null}
        {stored?.archived ? <Notice tone="warning" title="This field is archived">People are not asked for it. It can still be changed; a change raises the requirement version.</Notice> : null}

        <section className="panel" aria-labelledby={`${prefix}-basics`}>
          <h3 id={`${prefix}-basics`}>The field</h3>
          <div className="form-grid">
            <Field label="Field key" required={creating} error={err('fieldKey')}
              description={creating
                ? 'How platforms and the API name the value. A letter, then 1 to 63 letters, digits or underscores (^[A-Za-z][A-Za-z0-9_]{1,63}$). It cannot be changed later.'
                : 'It cannot be changed.'}>
              {({ id, describedBy, invalid }) => (
                <input id={id} ref={register('fieldKey')} type="text" value={draft.fieldKey} readOnly={!creating} spellCheck={false} autoComplete="off" maxLength={64}
                  className={creating ? undefined : 'oa-readonly'} aria-describedby={describedBy} aria-invalid={invalid || undefined}
                  onChange={(event) => change('fieldKey', { ...draft, fieldKey: event.target.value })} />
              )}
            </Field>
            <Field label="Label" required error={err('label')} description="The question or name people see.">
              {({ id, describedBy, invalid }) => (
                <input id={id} ref={register('label')} type="text" value={draft.label} maxLength={200} autoComplete="off"
                  aria-describedby={describedBy} aria-invalid={invalid || undefined}
                  onChange={(event) => change('label', { ...draft, label: event.target.value })} />
              )}
            </Field>
            <Field label="Type" error={err('fieldType')}
              description={bound
                ? `The profile property ${bound.label} needs this type (${draft.fieldType} in the API).`
                : `The input people fill in (${draft.fieldType} in the API).`}>
              {({ id, describedBy, invalid }) => (
                <select id={id} ref={register('fieldType')} value={draft.fieldType} aria-describedby={describedBy} aria-invalid={invalid || undefined}
                  onChange={(event) => change(['fieldType', 'options', 'validation', 'validation/minLength', 'validation/maxLength', 'validation/min', 'validation/max'],
                    withType(draft, event.target.value as FieldType))}>
                  {/* People's words only: with the API's name too the longest option was cut off on a phone. */}
                  {types.map((entry) => <option key={entry.type} value={entry.type}>{entry.label}</option>)}
                </select>
              )}
            </Field>
            <Field label="Sort order" width="half" required error={err('sortOrder')} description="Fields are shown in ascending order.">
              {({ id, describedBy, invalid }) => (
                <input id={id} ref={register('sortOrder')} type="text" inputMode="numeric" value={draft.sortOrder} autoComplete="off"
                  aria-describedby={describedBy} aria-invalid={invalid || undefined}
                  onChange={(event) => change('sortOrder', { ...draft, sortOrder: event.target.value })} />
              )}
            </Field>
            <Field label="Required" kind="checkbox" error={err('required')} description="People must fill it in to complete onboarding.">
              {({ id, describedBy, invalid }) => (
                <input id={id} ref={register('required')} type="checkbox" checked={draft.required} aria-describedby={describedBy} aria-invalid={invalid || undefined}
                  onChange={(event) => change('required', { ...draft, required: event.target.checked })} />
              )}
            </Field>
          </div>
        </section>

        <section className="panel" aria-labelledby={`${prefix}-source`}>
          <h3 id={`${prefix}-source`}>Where the value is kept</h3>
          <div className="form-grid">
            <fieldset className={`field oa-source${err('source') ? ' field-invalid' : ''}`} aria-describedby={err('source') ? `${prefix}-source-error` : undefined}>
              <legend className="visually-hidden">Where the value is kept</legend>
              {err('source') ? <p id={`${prefix}-source-error`} className="field-error" role="alert">{err('source')}</p> : null}
              <label className="choice">
                <input type="radio" name={`${prefix}-source`} ref={register('source')} checked={draft.source === 'CUSTOM_FIELD'}
                  onChange={() => change(['source', 'profileField'], withSource(draft, 'CUSTOM_FIELD'))} />
                <span><strong>Custom</strong>: kept for this platform only.</span>
              </label>
              <label className="choice">
                <input type="radio" name={`${prefix}-source`} checked={draft.source === 'PROFILE_FIELD'}
                  onChange={() => change(['source', 'profileField'], withSource(draft, 'PROFILE_FIELD'))} />
                <span><strong>Profile</strong>: a property of the person's profile, shared by every platform that asks for it.</span>
              </label>
            </fieldset>
            {draft.source === 'PROFILE_FIELD' ? (
              <Field label="Profile property" required error={err('profileField')}
                description="Choosing a property sets the type it needs. A platform asks for each property with one active field at most.">
                {({ id, describedBy, invalid }) => (
                  <select id={id} ref={register('profileField')} value={draft.profileField ?? ''} aria-describedby={describedBy} aria-invalid={invalid || undefined}
                    onChange={(event) => change(['profileField', 'fieldType'], withProfileProperty(draft, (event.target.value || null) as ProfileProperty | null))}>
                    <option value="">Choose a property…</option>
                    <ProfileOptions fieldType={draft.fieldType} boundElsewhere={boundElsewhere} />
                  </select>
                )}
              </Field>
            ) : null}
          </div>
        </section>

        {takesOptions(draft.fieldType) ? (
          <section className="panel" aria-labelledby={`${prefix}-options`}>
            <h3 id={`${prefix}-options`}>Choices</h3>
            <OptionsEditor idPrefix={`${prefix}-options`} options={draft.options} register={register}
              errors={new Map([...errors].map(([pointer, message]) => [pointer, besideText(pointer, message)]))}
              onChange={(options, structural) => {
                if (structural) {
                  setDraft({ ...draft, options });
                  setErrors((current) => new Map([...current].filter(([pointer]) => !pointer.startsWith('options'))));
                } else {
                  const touched = options.findIndex((option, index) => option !== draft.options[index]);
                  change(['options', `options/${touched}`, `options/${touched}/value`, `options/${touched}/label`], { ...draft, options });
                }
              }} />
          </section>
        ) : null}

        {takesLengths(draft.fieldType) || takesRange(draft.fieldType) ? (
          <section className="panel" aria-labelledby={`${prefix}-limits`}>
            <h3 id={`${prefix}-limits`}>Limits</h3>
            <p className="oa-muted">Leave a box empty for no limit. The gateway refuses values outside them.</p>
            <div className="form-grid">
              {takesLengths(draft.fieldType) ? (
                <>
                  <NumberBox label="Minimum length" pointer="validation/minLength" value={draft.minLength} error={err('validation/minLength') ?? err('validation')} register={register}
                    help="In characters." onChange={(value) => change(['validation/minLength', 'validation'], { ...draft, minLength: value })} />
                  <NumberBox label="Maximum length" pointer="validation/maxLength" value={draft.maxLength} error={err('validation/maxLength')} register={register}
                    help="In characters." onChange={(value) => change('validation/maxLength', { ...draft, maxLength: value })} />
                </>
              ) : (
                <>
                  <NumberBox label="Minimum" pointer="validation/min" value={draft.min} error={err('validation/min') ?? err('validation')} register={register}
                    decimal onChange={(value) => change(['validation/min', 'validation'], { ...draft, min: value })} />
                  <NumberBox label="Maximum" pointer="validation/max" value={draft.max} error={err('validation/max')} register={register}
                    decimal onChange={(value) => change('validation/max', { ...draft, max: value })} />
                </>
              )}
            </div>
          </section>
        ) : null}

        <section className="panel" aria-labelledby={`${prefix}-presentation`}>
          <h3 id={`${prefix}-presentation`}>Presentation</h3>
          <div className="form-grid">
            <Field label="Width" width="half" error={err('uiConfig/width') ?? err('uiConfig')} description="Of the form's row, on wide screens.">
              {({ id, describedBy, invalid }) => (
                <select id={id} ref={register('uiConfig/width')} value={draft.width} aria-describedby={describedBy} aria-invalid={invalid || undefined}
                  onChange={(event) => change(['uiConfig/width', 'uiConfig'], { ...draft, width: event.target.value as Width | '' })}>
                  <option value="">Full width (default)</option>
                  {draft.width === 'full' ? <option value="full">Full width</option> : null}
                  <option value="half">Half</option>
                  <option value="third">One third</option>
                </select>
              )}
            </Field>
            <Field label="Placeholder" width="half" error={err('placeholder')}
              description={NO_PLACEHOLDER_TYPES.includes(draft.fieldType)
                ? `Not shown for ${typeLabel(draft.fieldType).toLowerCase()}.`
                : draft.fieldType === 'SELECT' ? 'Shown instead of “Choose…” until something is chosen.' : 'A hint inside the empty input.'}>
              {({ id, describedBy, invalid }) => (
                <input id={id} ref={register('placeholder')} type="text" value={draft.placeholder} maxLength={200} autoComplete="off"
                  aria-describedby={describedBy} aria-invalid={invalid || undefined}
                  onChange={(event) => change('placeholder', { ...draft, placeholder: event.target.value })} />
              )}
            </Field>
            <Field label="Help text" error={err('uiConfig/helpText')} description="Plain text under the input.">
              {({ id, describedBy, invalid }) => (
                <textarea id={id} ref={register('uiConfig/helpText')} value={draft.helpText} maxLength={500} rows={2} className="oa-short-text"
                  aria-describedby={describedBy} aria-invalid={invalid || undefined}
                  onChange={(event) => change(['uiConfig/helpText', 'uiConfig'], { ...draft, helpText: event.target.value })} />
              )}
            </Field>
            <Field label="Description" error={err('description')} description="Plain text between the label and the input.">
              {({ id, describedBy, invalid }) => (
                <textarea id={id} ref={register('description')} value={draft.description} maxLength={1000} rows={3} className="oa-short-text"
                  aria-describedby={describedBy} aria-invalid={invalid || undefined}
                  onChange={(event) => change('description', { ...draft, description: event.target.value })} />
              )}
            </Field>
          </div>
        </section>

        <TranslationsEditor draft={draft} errorFor={err} register={register}
          onChange={(translations) => change([...errors.keys()].filter((pointer) => pointer.startsWith('translations')), { ...draft, translations })} />

        <div className="actions oa-form-actions">
          <button type="submit" className="button" disabled={busy}>{busy && !pending ? 'Checking the impact…' : creating ? 'Add the field' : 'Save the changes'}</button>
          <Link className="button button-secondary" to={platformPath(platformKey)}>Cancel</Link>
        </div>
        <p className="oa-muted">Before anything is saved you see its impact: how many people who completed onboarding will be asked again.</p>
      </form>

      <aside className="oa-editor-preview" aria-labelledby={`${prefix}-preview`}>
        <div className="panel">
          <h2 id={`${prefix}-preview`}>Preview</h2>
          <p className="oa-muted">What people will see. Try it: nothing you enter here is saved.</p>
          <FormPreview fields={[preview]} />
          <details className="oa-whole-form" onToggle={(event) => setWholeFormOpen(event.currentTarget.open)}>
            <summary>The whole form with this field</summary>
            {wholeFormOpen ? <FormPreview fields={wholeForm} /> : null}
          </details>
        </div>
      </aside>

      <ImpactDialog
        preview={pending?.preview ?? null}
        title={creating ? `Add “${draft.label.trim() || draft.fieldKey}”?` : `Save the changes to “${stored.label}”?`}
        intro={creating && draft.required ? <p>It is required: people must fill it in before their onboarding is complete.</p> : null}
        showChanges={!creating}
        confirmLabel={creating ? 'Add the field' : 'Save the changes'}
        busy={busy}
        onConfirm={() => void confirm()}
        onCancel={() => setPending(null)}
      />
    </div>
  );
}

/** The profile properties: those that fit the current type first; the others change it. */
function ProfileOptions({ fieldType, boundElsewhere }: { fieldType: FieldType; boundElsewhere: ReadonlyMap<ProfileProperty, string> }) {
  const fitting = PROFILE_PROPERTIES.filter((entry) => entry.type === fieldType);
  const others = PROFILE_PROPERTIES.filter((entry) => entry.type !== fieldType);
  const option = (entry: (typeof PROFILE_PROPERTIES)[number]) => {
    const other = boundElsewhere.get(entry.property);
    return (
      <option key={entry.property} value={entry.property} disabled={other !== undefined}>
        {`${entry.label} (${entry.property})${other ? `: used by the field ${other}` : ''}`}
      </option>
    );
  };
  return (
    <>
      {fitting.length > 0 ? <optgroup label={`Fit the type ${typeLabel(fieldType)}`}>{fitting.map(option)}</optgroup> : null}
      {others.length > 0 ? <optgroup label={fitting.length > 0 ? 'Other properties (the type changes)' : 'Properties (the type changes)'}>{others.map(option)}</optgroup> : null}
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

/** Read only: every setting of the field, and the preview. */
export function FieldDetails({ field }: { field: Definition }) {
  const bound = profileProperty(field.profileField);
  const none = <span className="oa-muted">None</span>;
  const settings = settingsOf(draftOf(field)).settings;
  return (
    <div className="oa-editor">
      <div className="oa-editor-form">
        <Notice title="Read only">{READ_ONLY_TEXT}</Notice>
        {field.archived ? <Notice tone="warning" title="This field is archived">People are not asked for it.</Notice> : null}
        <section className="panel" aria-labelledby="oa-details-title">
          <h2 id="oa-details-title">Settings</h2>
          <dl className="oa-details">
            <div><dt>Field key</dt><dd className="oa-key">{field.fieldKey}</dd></div>
            <div><dt>Label</dt><dd>{field.label}</dd></div>
            <div><dt>Type</dt><dd>{`${typeLabel(field.fieldType)} (${field.fieldType})`}</dd></div>
            <div><dt>Required</dt><dd>{field.required ? 'Yes' : 'No'}</dd></div>
            <div><dt>Sort order</dt><dd>{field.sortOrder}</dd></div>
            <div><dt>Kept in</dt><dd>{bound ? `The profile: ${bound.label} (${bound.property})` : 'This platform (custom)'}</dd></div>
            <div>
              <dt>Options</dt>
              <dd>{field.options.length === 0 ? none : (
                <ol className="oa-plain-list">{field.options.map((option) => <li key={option.value}>{`${option.label} (${option.value})`}</li>)}</ol>
              )}</dd>
            </div>
            <div>
              <dt>Limits</dt>
              <dd>{Object.keys(field.validation).length === 0 ? none : Object.entries(field.validation).map(([key, value]) => `${pointerLabel(`validation/${key}`)}: ${value}`).join(', ')}</dd>
            </div>
            <div><dt>Width</dt><dd>{field.uiConfig.width ?? 'Full (default)'}</dd></div>
            <div><dt>Help text</dt><dd>{field.uiConfig.helpText || none}</dd></div>
            <div><dt>Placeholder</dt><dd>{field.placeholder || none}</dd></div>
            <div><dt>Description</dt><dd>{field.description || none}</dd></div>
          </dl>
        </section>
      </div>
      <aside className="oa-editor-preview" aria-labelledby="oa-details-preview">
        <div className="panel">
          <h2 id="oa-details-preview">Preview</h2>
          <FormPreview fields={[previewDefinition(draftOf(field), settings)]} />
        </div>
      </aside>
    </div>
  );
}
