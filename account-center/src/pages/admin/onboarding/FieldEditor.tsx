import { useCallback, useEffect, useId, useMemo, useRef, useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { useIntl } from 'react-intl';
import { problemText } from '../../../i18n/problems.ts';
import { ApiProblem } from '../../../api.ts';
import { ErrorSummary } from '../../../components/ErrorSummary.tsx';
import { LoadState } from '../../../components/LoadState.tsx';
import { Notice } from '../../../components/Notice.tsx';
import { PageTitle } from '../../../components/PageTitle.tsx';
import { hasPermission, useSession } from '../../../session.tsx';
import { createField, updateField } from './gateway.ts';
import { TranslationsEditor } from './TranslationsEditor.tsx';
import { FieldDetails } from './FieldDetails.tsx';
import { BasicsSection, LimitsSection, PresentationSection, SourceSection, type SectionProps } from './FieldFormSections.tsx';
import { FormPreview } from './FormPreview.tsx';
import { ImpactDialog } from './ImpactDialog.tsx';
import {
  draftOf, emptyDraft, nextSortOrder, takesOptions, type ChangePreview, type CreateBody, type Definition, type Draft, type ProfileProperty, type UpdateBody,
} from './model.ts';
import { createBody, patchBody, previewDefinition, settingsOf, type FormErrors } from './settings.ts';
import { pointerLabel, pointerRank } from './pointers.ts';
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
  /** When the change is enforced (issue 36): null for immediately. */
  const [enforceAfter, setEnforceAfter] = useState<string | null>(null);
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
      setPending({ body, preview: { dryRun: true, changed: false, changedFields: [], field: stored, requirementVersion: 0, reopenedUsers: 0, enforceAfter: null, graceUsers: 0, meetingUsers: 0 } });
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
        ? await createField(api, platformKey, pending.body as CreateBody, false, enforceAfter)
        : await updateField(api, platformKey, stored.fieldKey, pending.body as UpdateBody, false, enforceAfter);
      const state: FlashState = { notice: t(creating ? 'schema.editor.added' : 'schema.editor.saved', { label: saved.label }) };
      navigate(platformPath(platformKey), { state });
    } catch (problem) {
      setPending(null);
      setEnforceAfter(null);
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
  const section: SectionProps = { prefix, draft, change, err, register };

  return (
    <div className="oa-editor">
      <form className="oa-editor-form" onSubmit={submit} noValidate aria-labelledby={`${prefix}-form-title`}>
        <h2 id={`${prefix}-form-title`} className="visually-hidden">{t(creating ? 'schema.editor.theNewField' : 'schema.editor.theField')}</h2>
        {failure ? <ErrorSummary message={failure.message} errors={summary} /> : null}
        {stored?.archived ? <Notice tone="warning" title={t('schema.editor.archivedTitle')}>{t('schema.editor.archivedEditable')}</Notice> : null}

        <BasicsSection {...section} creating={creating} />

        <SourceSection {...section} boundElsewhere={boundElsewhere} />

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

        <LimitsSection {...section} />

        <PresentationSection {...section} />

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
        onCancel={() => { setPending(null); setEnforceAfter(null); }}
        enforcement={{ enforceAfter, onChange: setEnforceAfter }}
      />
    </div>
  );
}

