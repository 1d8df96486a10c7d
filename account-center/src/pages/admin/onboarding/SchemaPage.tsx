import { useEffect, useRef, useState, type ReactNode } from 'react';
import { Link, useLocation, useNavigate } from 'react-router';
import { useIntl, type IntlShape } from 'react-intl';
import { ApiProblem } from '../../../api.ts';
import { problemText } from '../../../i18n/problems.ts';
import { LoadState } from '../../../components/LoadState.tsx';
import { Notice } from '../../../components/Notice.tsx';
import { PageTitle } from '../../../components/PageTitle.tsx';
import { hasPermission, useSession } from '../../../session.tsx';
import { archiveField, updateField } from './gateway.ts';
import { FormPreview } from './FormPreview.tsx';
import { ImpactDialog } from './ImpactDialog.tsx';
import { GracePanel } from './GracePanel.tsx';
import { profileProperty, propertyLabel, typeLabel, type ChangePreview, type Definition } from './model.ts';
import { movePlan, type SortChange } from './reordering.ts';
import { ADMIN_BASE, fieldPath, newFieldPath } from './paths.ts';
import { modeWords } from './PlatformPicker.tsx';
import { useFieldList, usePlatformFacts } from './usePlatform.ts';

/** What a page hands the next one to say (after a save, the platform page tells what happened). */
export interface FlashState {
  notice?: string;
}

type Pending =
  | { kind: 'archive'; field: Definition; preview: ChangePreview }
  | { kind: 'move'; field: Definition; neighbour: Definition; direction: -1 | 1; plan: SortChange[]; preview: ChangePreview };

/** The read-only notice's words (`schema.readOnly`), shared with the field editor. */
export const READ_ONLY_TEXT_ID = 'schema.readOnly';

/** /admin/onboarding/{platformKey}: the platform's form, its fields in order, and what can be done to them. */
export function SchemaPage({ platformKey }: { platformKey: string }) {
  const { api, me } = useSession();
  const canWrite = hasPermission(me, 'onboarding:schema:write');
  const location = useLocation();
  const navigate = useNavigate();
  const intl = useIntl();
  const t = (id: string, values?: Record<string, string | number>) => intl.formatMessage({ id }, values);
  const [showArchived, setShowArchived] = useState(false);
  const { list, error, reload } = useFieldList(platformKey, showArchived);
  const { displayName, platform } = usePlatformFacts(platformKey);
  const [notice, setNotice] = useState<string | null>((location.state as FlashState | null)?.notice ?? null);
  const [failure, setFailure] = useState<string | null>(null);
  const [pending, setPending] = useState<Pending | null>(null);
  /** When the change is enforced (issue 36): null for immediately. */
  const [enforceAfter, setEnforceAfter] = useState<string | null>(null);
  const [working, setWorking] = useState<string | null>(null);
  const [focusAfter, setFocusAfter] = useState<string | null>(null);
  const noticeRef = useRef<HTMLDivElement>(null);
  const failureRef = useRef<HTMLDivElement>(null);

  // The flash notice is read once; a reload of the page does not repeat it.
  useEffect(() => {
    if ((location.state as FlashState | null)?.notice) navigate(location.pathname, { replace: true, state: null });
  }, [location.state, location.pathname, navigate]);
  useEffect(() => {
    if (notice) noticeRef.current?.focus();
  }, [notice]);
  useEffect(() => {
    if (failure) failureRef.current?.focus();
  }, [failure]);
  useEffect(() => {
    if (!focusAfter || !list) return;
    // Field keys are letters, digits and underscores: safe inside a quoted attribute selector.
    const target = document.querySelector<HTMLElement>(`[data-focus="${focusAfter}"]:not(:disabled)`)
      ?? document.querySelector<HTMLElement>(`[data-focus="${focusAfter.replace(/:.*/, ':edit')}"]`);
    target?.focus();
    setFocusAfter(null);
  }, [focusAfter, list]);

  const items = list?.items ?? [];
  const active = items.filter((field) => !field.archived);
  const title = t('schema.page.title', { platform: displayName ?? platformKey });

  // The sentence says what was not done; the gateway's reason follows (its words are the gateway's).
  const fail = (problem: unknown, id: 'schema.page.notArchived' | 'schema.page.notMoved', label: string) => {
    const reason = problem instanceof ApiProblem ? problemText(intl, problem) : problem instanceof Error ? problem.message : '';
    setFailure(t(id, { label, reason }).trim());
  };

  async function startArchive(field: Definition) {
    setNotice(null);
    setFailure(null);
    setWorking(`${field.fieldKey}:archive`);
    try {
      setPending({ kind: 'archive', field, preview: await archiveField(api, platformKey, field.fieldKey, true) });
    } catch (problem) {
      fail(problem, 'schema.page.notArchived', field.label);
    } finally {
      setWorking(null);
    }
  }

  async function startMove(field: Definition, direction: -1 | 1) {
    setNotice(null);
    setFailure(null);
    const index = active.findIndex((candidate) => candidate.fieldKey === field.fieldKey);
    const neighbour = active[index + direction];
    const plan = movePlan(active, index, direction);
    const first = plan[0];
    if (!neighbour || !first) return;
    setWorking(`${field.fieldKey}:${direction < 0 ? 'up' : 'down'}`);
    try {
      const preview = await updateField(api, platformKey, first.fieldKey, { sortOrder: first.sortOrder }, true);
      setPending({ kind: 'move', field, neighbour, direction, plan, preview });
    } catch (problem) {
      fail(problem, 'schema.page.notMoved', field.label);
    } finally {
      setWorking(null);
    }
  }

  async function confirm() {
    if (!pending) return;
    setWorking('confirm');
    try {
      if (pending.kind === 'archive') {
        await archiveField(api, platformKey, pending.field.fieldKey, false, enforceAfter);
      } else {
        for (const change of pending.plan) await updateField(api, platformKey, change.fieldKey, { sortOrder: change.sortOrder }, false, enforceAfter);
      }
      const answer = await reload();
      setPending(null);
      setEnforceAfter(null);
      const version = answer ? answer.requirementVersion : null;
      const values = { label: pending.field.label, version: version ?? 0, known: String(version !== null) };
      if (pending.kind === 'archive') {
        setNotice(t('schema.page.archived', values));
      } else {
        setNotice(t(pending.direction < 0 ? 'schema.page.movedUp' : 'schema.page.movedDown', values));
        setFocusAfter(`${pending.field.fieldKey}:${pending.direction < 0 ? 'up' : 'down'}`);
      }
    } catch (problem) {
      setPending(null);
      setEnforceAfter(null);
      await reload();
      fail(problem, pending.kind === 'archive' ? 'schema.page.notArchived' : 'schema.page.notMoved', pending.field.label);
    } finally {
      setWorking(null);
    }
  }

  return (
    <>
      <nav aria-label={t('schema.breadcrumb')} className="oa-breadcrumb">
        <ol>
          <li><Link to={ADMIN_BASE}>{t('schema.picker.title')}</Link></li>
          <li><span aria-current="page">{platformKey}</span></li>
        </ol>
      </nav>
      <PageTitle lead={t('schema.page.lead')}>{title}</PageTitle>
      {notice ? <div ref={noticeRef} tabIndex={-1} className="oa-focus-target"><Notice tone="success">{notice}</Notice></div> : null}
      {failure ? (
        <div ref={failureRef} tabIndex={-1} className="error-summary" role="alert">
          <h2>{failure}</h2>
        </div>
      ) : null}
      <LoadState loading={list === null} error={list === null ? error : null} onRetry={() => void reload()} what={t('schema.page.what')}>
        {list ? (
          <>
            {canWrite ? null : <Notice title={t('schema.readOnlyTitle')}>{t(READ_ONLY_TEXT_ID)}</Notice>}
            <dl className="oa-facts">
              <div><dt>{t('platforms.field.platformKey')}</dt><dd className="oa-key">{platformKey}</dd></div>
              <div><dt>{t('platforms.detail.requirementVersion')}</dt><dd data-testid="requirement-version">{list.requirementVersion}</dd></div>
              <div><dt>{t('schema.page.activeFields')}</dt><dd>{intl.formatNumber(active.length)}</dd></div>
              {platform ? <div><dt>{t('schema.page.onboarding')}</dt><dd>{modeWords(intl, platform.defaultOnboardingMode)}</dd></div> : null}
            </dl>
            <p className="oa-muted">{t('schema.page.versionNote')}</p>
            <GracePanel platformKey={platformKey} canWrite={canWrite} requirementVersion={list.requirementVersion} />

            <section className="panel" aria-labelledby="oa-fields-title">
              <div className="oa-section-head">
                <h2 id="oa-fields-title">{t('schema.page.fields')}</h2>
                {canWrite ? <Link className="button" to={newFieldPath(platformKey)}>{t('schema.page.addField')}</Link> : null}
              </div>
              <div className="choice oa-toggle">
                <input id="oa-show-archived" type="checkbox" checked={showArchived} onChange={(event) => setShowArchived(event.target.checked)} />
                <label htmlFor="oa-show-archived">{t('schema.page.showArchived')}</label>
              </div>
              {error ? <p className="field-error" role="alert">{t('schema.page.refreshFailed', { reason: problemText(intl, error) })}</p> : null}
              {items.length === 0 ? (
                <p>{t(showArchived ? 'schema.page.noFieldAtAll' : 'schema.page.noField')}</p>
              ) : (
                <ol className="oa-fields">
                  {items.map((field) => {
                    const index = active.findIndex((candidate) => candidate.fieldKey === field.fieldKey);
                    return (
                      <FieldRow key={field.fieldKey} platformKey={platformKey} field={field} canWrite={canWrite} working={working}
                        canMoveUp={index > 0} canMoveDown={index >= 0 && index < active.length - 1}
                        onMove={(direction) => void startMove(field, direction)} onArchive={() => void startArchive(field)} />
                    );
                  })}
                </ol>
              )}
            </section>

            <section className="panel" aria-labelledby="oa-form-preview-title">
              <h2 id="oa-form-preview-title">{t('schema.page.preview')}</h2>
              <p className="oa-muted">{t('schema.page.previewNote')}</p>
              <FormPreview fields={active} />
            </section>
          </>
        ) : null}
      </LoadState>

      <ImpactDialog
        preview={pending?.preview ?? null}
        steps={pending?.kind === 'move' ? pending.plan.length : 1}
        title={pending?.kind === 'archive' ? t('schema.page.archiveTitle', { label: pending.field.label }) : pending ? t(pending.direction < 0 ? 'schema.page.moveUpTitle' : 'schema.page.moveDownTitle', { label: pending.field.label }) : ''}
        intro={pending ? dialogIntro(intl, pending) : null}
        confirmLabel={t(pending?.kind === 'archive' ? 'schema.page.archiveConfirm' : 'schema.page.moveConfirm')}
        danger={pending?.kind === 'archive'}
        busy={working === 'confirm'}
        onConfirm={() => void confirm()}
        onCancel={() => { setPending(null); setEnforceAfter(null); }}
        enforcement={{ enforceAfter, onChange: setEnforceAfter }}
      />
    </>
  );
}

function dialogIntro(intl: IntlShape, pending: Pending): ReactNode {
  if (pending.kind === 'archive') {
    return <p>{intl.formatMessage({ id: 'schema.page.archiveIntro' })}</p>;
  }
  return (
    <>
      <p>{intl.formatMessage({ id: pending.direction < 0 ? 'schema.page.comesAbove' : 'schema.page.comesBelow' }, { label: pending.neighbour.label })}</p>
      <p>{intl.formatMessage({ id: 'schema.page.reorderNote' }, { count: pending.plan.length })}</p>
    </>
  );
}

function FieldRow({ platformKey, field, canWrite, working, canMoveUp, canMoveDown, onMove, onArchive }: {
  platformKey: string;
  field: Definition;
  canWrite: boolean;
  working: string | null;
  canMoveUp: boolean;
  canMoveDown: boolean;
  onMove: (direction: -1 | 1) => void;
  onArchive: () => void;
}) {
  const bound = profileProperty(field.profileField);
  const busy = working !== null;
  const intl = useIntl();
  const t = (id: string, values?: Record<string, string | number>) => intl.formatMessage({ id }, values);
  // The action's word, then the field's label for screen readers (one message: the order is the language's).
  const named = (id: string) => intl.formatMessage({ id }, { label: <span className="visually-hidden" key="label">{field.label}</span> });
  return (
    <li className={`oa-field${field.archived ? ' oa-field-archived' : ''}`}>
      <div className="oa-field-main">
        <h3 className="oa-field-title">
          {field.label}
          {field.archived ? <span className="badge badge-muted">{t('schema.field.archived')}</span> : null}
          {field.required ? <span className="badge badge-warning">{t('schema.field.required')}</span> : <span className="badge">{t('schema.field.optional')}</span>}
        </h3>
        <dl className="oa-field-facts">
          <div><dt>{t('schema.field.key')}</dt><dd className="oa-key">{field.fieldKey}</dd></div>
          <div><dt>{t('schema.field.type')}</dt><dd>{typeLabel(intl, field.fieldType)}</dd></div>
          <div><dt>{t('schema.field.storedIn')}</dt><dd>{bound ? t('schema.field.inProfile', { property: propertyLabel(intl, bound.property) }) : t('schema.field.custom')}</dd></div>
          <div><dt>{t('schema.field.sortOrder')}</dt><dd>{field.sortOrder}</dd></div>
          {field.options.length > 0 ? <div><dt>{t('schema.field.options')}</dt><dd>{intl.formatNumber(field.options.length)}</dd></div> : null}
        </dl>
      </div>
      <div className="oa-field-actions">
        {canWrite && !field.archived ? (
          <>
            <button type="button" className="button button-secondary oa-small" data-focus={`${field.fieldKey}:up`} disabled={!canMoveUp || busy} onClick={() => onMove(-1)}>
              {working === `${field.fieldKey}:up` ? t('schema.field.checking') : named('schema.field.moveUp')}
            </button>
            <button type="button" className="button button-secondary oa-small" data-focus={`${field.fieldKey}:down`} disabled={!canMoveDown || busy} onClick={() => onMove(1)}>
              {working === `${field.fieldKey}:down` ? t('schema.field.checking') : named('schema.field.moveDown')}
            </button>
          </>
        ) : null}
        <Link className="button button-secondary oa-small" data-focus={`${field.fieldKey}:edit`} to={fieldPath(platformKey, field.fieldKey)}>
          {named(canWrite ? 'schema.field.edit' : 'schema.field.view')}
        </Link>
        {canWrite && !field.archived ? (
          <button type="button" className="button button-secondary oa-small oa-danger-text" data-focus={`${field.fieldKey}:archive`} disabled={busy} onClick={onArchive}>
            {working === `${field.fieldKey}:archive` ? t('schema.field.checking') : named('schema.field.archive')}
          </button>
        ) : null}
      </div>
    </li>
  );
}
