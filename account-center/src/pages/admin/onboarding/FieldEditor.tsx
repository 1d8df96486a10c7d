import { useCallback, useEffect, useId, useMemo, useRef, useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { useIntl } from 'react-intl';
import { problemText } from '../../../i18n/problems.ts';
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
  PROFILE_PROPERTIES, previewDefinition, profileProperty, propertyLabel, settingsOf, takesLengths, takesOptions, takesRange, typeLabel, withProfileProperty,
  withSource, withType, type ChangePreview, type CreateBody, type Definition, type Draft, type FieldType, type FormErrors, type ProfileProperty,
  type UpdateBody, type Width,
} from './model.ts';
import { OptionsEditor } from './OptionsEditor.tsx';
import { ADMIN_BASE, platformPath } from './paths.ts';
import { READ_ONLY_TEXT_ID, type FlashState } from './SchemaPage.tsx';
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
  const intl = useIntl();
  const t = (id: string, values?: Record<string, string | number>) => intl.formatMessage({ id }, values);
  const title = fieldKey === null ? t('schema.page.addField') : stored ? t(canWrite ? 'schema.editor.editTitle' : 'schema.editor.viewTitle', { label: stored.label }) : t('schema.editor.field');
  return (
    <>
      <nav aria-label={t('schema.breadcrumb')} className="oa-breadcrumb">
        <ol>
          <li><Link to={ADMIN_BASE}>{t('schema.picker.title')}</Link></li>
          <li><Link to={platformPath(platformKey)}>{platformKey}</Link></li>
          <li><span aria-current="page">{fieldKey === null ? t('schema.editor.newField') : fieldKey}</span></li>
        </ol>
      </nav>
      <PageTitle>{title}</PageTitle>
      <LoadState loading={list === null} error={list === null ? error : null} onRetry={() => void reload()} what={t('schema.page.what')}>
        {list && fieldKey !== null && !stored ? (
          <div className="load-error" role="alert">
            <p><strong>{t('schema.editor.noSuchField', { key: fieldKey })}</strong></p>
            <p><Link to={platformPath(platformKey)}>{t('schema.editor.backToForm', { platform: platformKey })}</Link></p>
          </div>
        ) : list && fieldKey === null && !canWrite ? (
          <Notice title={t('schema.readOnlyTitle')}>{t(READ_ONLY_TEXT_ID)}</Notice>
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
  const intl = useIntl();
  const t = (id: string, values?: Record<string, string | number>) => intl.formatMessage({ id }, values);

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

  const { settings, errors: numberErrors } = useMemo(() => settingsOf(intl, draft), [intl, draft]);
  const preview = useMemo(() => previewDefinition(intl, draft, settings), [intl, draft, settings]);
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
      refuse(problem instanceof Error ? problem.message : t('schema.editor.failed'), new Map());
      return;
    }
    const found: FormErrors = problem.fieldErrors('/body/');
    if (problem.problem?.code === 'CONFLICT' && creating) {
      found.set('fieldKey', t('schema.editor.keyTaken', { key: draft.fieldKey.trim() }));
      refuse(t('schema.editor.keyTakenSummary'), found);
    } else if (problem.status === 400 && found.size > 0) {
      refuse(t('schema.editor.refused', { count: found.size }), found);
    } else if (problem.status === 403) {
      refuse(t('schema.editor.forbidden', { reason: problemText(intl, problem) }), found);
    } else {
      refuse(problemText(intl, problem), found);
    }
  };

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (busy) return;
    if (numberErrors.size > 0) {
      refuse(t('schema.editor.correct', { count: numberErrors.size }), new Map(numberErrors));
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
      const state: FlashState = { notice: t(creating ? 'schema.editor.added' : 'schema.editor.saved', { label: saved.label }) };
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
      .map(([pointer, message]) => ({ inputId: elementFor(pointer)?.id ?? `${prefix}-label`, label: pointerLabel(intl, pointer), message: besideText(pointer, message).replace(/\.$/, '') }))
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
        <h2 id={`${prefix}-form-title`} className="visually-hidden">{t(creating ? 'schema.editor.theNewField' : 'schema.editor.theField')}</h2>
        {failure ? <ErrorSummary message={failure.message} errors={summary} /> : null}
        {stored?.archived ? <Notice tone="warning" title={t('schema.editor.archivedTitle')}>{t('schema.editor.archivedEditable')}</Notice> : null}

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
          </div>
        </section>

        {takesOptions(draft.fieldType) ? (
          <section className="panel" aria-labelledby={`${prefix}-options`}>
            <h3 id={`${prefix}-options`}>{t('schema.editor.choices')}</h3>
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

        <TranslationsEditor draft={draft} errorFor={err} register={register}
          onChange={(translations) => change([...errors.keys()].filter((pointer) => pointer.startsWith('translations')), { ...draft, translations })} />

        <div className="actions oa-form-actions">
          <button type="submit" className="button" disabled={busy}>{t(busy && !pending ? 'schema.editor.checking' : creating ? 'schema.editor.add' : 'schema.editor.save')}</button>
          <Link className="button button-secondary" to={platformPath(platformKey)}>{t('common.cancel')}</Link>
        </div>
        <p className="oa-muted">{t('schema.editor.impactNote')}</p>
      </form>

      <aside className="oa-editor-preview" aria-labelledby={`${prefix}-preview`}>
        <div className="panel">
          <h2 id={`${prefix}-preview`}>{t('schema.editor.preview')}</h2>
          <p className="oa-muted">{t('schema.editor.previewNote')}</p>
          <FormPreview fields={[preview]} />
          <details className="oa-whole-form" onToggle={(event) => setWholeFormOpen(event.currentTarget.open)}>
            <summary>{t('schema.editor.wholeForm')}</summary>
            {wholeFormOpen ? <FormPreview fields={wholeForm} /> : null}
          </details>
        </div>
      </aside>

      <ImpactDialog
        preview={pending?.preview ?? null}
        title={creating ? t('schema.editor.addTitle', { label: draft.label.trim() || draft.fieldKey }) : t('schema.editor.saveTitle', { label: stored.label })}
        intro={creating && draft.required ? <p>{t('schema.editor.requiredIntro')}</p> : null}
        showChanges={!creating}
        confirmLabel={t(creating ? 'schema.editor.add' : 'schema.editor.save')}
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

/** Read only: every setting of the field, and the preview. */
export function FieldDetails({ field }: { field: Definition }) {
  const bound = profileProperty(field.profileField);
  const intl = useIntl();
  const t = (id: string, values?: Record<string, string | number>) => intl.formatMessage({ id }, values);
  const none = <span className="oa-muted">{t('schema.details.none')}</span>;
  const settings = settingsOf(intl, draftOf(field)).settings;
  return (
    <div className="oa-editor">
      <div className="oa-editor-form">
        <Notice title={t('schema.readOnlyTitle')}>{t(READ_ONLY_TEXT_ID)}</Notice>
        {field.archived ? <Notice tone="warning" title={t('schema.editor.archivedTitle')}>{t('schema.editor.archivedNote')}</Notice> : null}
        <section className="panel" aria-labelledby="oa-details-title">
          <h2 id="oa-details-title">{t('platforms.detail.settings')}</h2>
          <dl className="oa-details">
            <div><dt>{t('schema.pointer.fieldKey')}</dt><dd className="oa-key">{field.fieldKey}</dd></div>
            <div><dt>{t('schema.pointer.label')}</dt><dd>{field.label}</dd></div>
            <div><dt>{t('schema.pointer.fieldType')}</dt><dd>{t('schema.details.type', { label: typeLabel(intl, field.fieldType), type: field.fieldType })}</dd></div>
            <div><dt>{t('schema.pointer.required')}</dt><dd>{t(field.required ? 'schema.details.yes' : 'schema.details.no')}</dd></div>
            <div><dt>{t('schema.pointer.sortOrder')}</dt><dd>{field.sortOrder}</dd></div>
            <div><dt>{t('schema.details.keptIn')}</dt><dd>{bound ? t('schema.details.inProfile', { label: propertyLabel(intl, bound.property), property: bound.property }) : t('schema.field.custom')}</dd></div>
            <div>
              <dt>{t('schema.pointer.options')}</dt>
              <dd>{field.options.length === 0 ? none : (
                <ol className="oa-plain-list">{field.options.map((option) => <li key={option.value}>{t('schema.details.option', { label: option.label, value: option.value })}</li>)}</ol>
              )}</dd>
            </div>
            <div>
              <dt>{t('schema.pointer.validation')}</dt>
              <dd>{Object.keys(field.validation).length === 0 ? none : intl.formatList(
                Object.entries(field.validation).map(([key, value]) => t('schema.details.limit', { name: pointerLabel(intl, `validation/${key}`), value: Number(value) })),
                { type: 'unit' },
              )}</dd>
            </div>
            <div><dt>{t('schema.pointer.uiConfig/width')}</dt><dd>{t(`schema.width.${field.uiConfig.width ?? 'default'}`)}</dd></div>
            <div><dt>{t('schema.pointer.uiConfig/helpText')}</dt><dd>{field.uiConfig.helpText || none}</dd></div>
            <div><dt>{t('schema.pointer.placeholder')}</dt><dd>{field.placeholder || none}</dd></div>
            <div><dt>{t('schema.pointer.description')}</dt><dd>{field.description || none}</dd></div>
          </dl>
        </section>
      </div>
      <aside className="oa-editor-preview" aria-labelledby="oa-details-preview">
        <div className="panel">
          <h2 id="oa-details-preview">{t('schema.editor.preview')}</h2>
          <FormPreview fields={[previewDefinition(intl, draftOf(field), settings)]} />
        </div>
      </aside>
    </div>
  );
}
