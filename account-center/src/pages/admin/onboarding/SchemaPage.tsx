import { useEffect, useRef, useState, type ReactNode } from 'react';
import { Link, useLocation, useNavigate } from 'react-router';
import { ApiProblem } from '../../../api.ts';
import { LoadState } from '../../../components/LoadState.tsx';
import { Notice } from '../../../components/Notice.tsx';
import { PageTitle } from '../../../components/PageTitle.tsx';
import { hasPermission, useSession } from '../../../session.tsx';
import { archiveField, updateField } from './gateway.ts';
import { FormPreview } from './FormPreview.tsx';
import { ImpactDialog } from './ImpactDialog.tsx';
import { movePlan, profileProperty, typeLabel, type ChangePreview, type Definition, type SortChange } from './model.ts';
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

export const READ_ONLY_TEXT = 'You can view this form; changing it needs the onboarding:schema:write permission.';

/** /admin/onboarding/{platformKey}: the platform's form, its fields in order, and what can be done to them. */
export function SchemaPage({ platformKey }: { platformKey: string }) {
  const { api, me } = useSession();
  const canWrite = hasPermission(me, 'onboarding:schema:write');
  const location = useLocation();
  const navigate = useNavigate();
  const [showArchived, setShowArchived] = useState(false);
  const { list, error, reload } = useFieldList(platformKey, showArchived);
  const { displayName, platform } = usePlatformFacts(platformKey);
  const [notice, setNotice] = useState<string | null>((location.state as FlashState | null)?.notice ?? null);
  const [failure, setFailure] = useState<string | null>(null);
  const [pending, setPending] = useState<Pending | null>(null);
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
  const title = `Onboarding form: ${displayName ?? platformKey}`;

  const fail = (problem: unknown, what: string) => {
    setFailure(`${what} ${problem instanceof Error ? problem.message : ''}`.trim());
  };

  async function startArchive(field: Definition) {
    setNotice(null);
    setFailure(null);
    setWorking(`${field.fieldKey}:archive`);
    try {
      setPending({ kind: 'archive', field, preview: await archiveField(api, platformKey, field.fieldKey, true) });
    } catch (problem) {
      fail(problem, `The field “${field.label}” could not be archived.`);
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
      fail(problem, `The field “${field.label}” could not be moved.`);
    } finally {
      setWorking(null);
    }
  }

  async function confirm() {
    if (!pending) return;
    setWorking('confirm');
    try {
      if (pending.kind === 'archive') {
        await archiveField(api, platformKey, pending.field.fieldKey, false);
      } else {
        for (const change of pending.plan) await updateField(api, platformKey, change.fieldKey, { sortOrder: change.sortOrder }, false);
      }
      const answer = await reload();
      setPending(null);
      const version = answer ? ` The requirement version is now ${answer.requirementVersion}.` : '';
      if (pending.kind === 'archive') {
        setNotice(`The field “${pending.field.label}” was archived.${version}`);
      } else {
        setNotice(`The field “${pending.field.label}” was moved ${pending.direction < 0 ? 'up' : 'down'}.${version}`);
        setFocusAfter(`${pending.field.fieldKey}:${pending.direction < 0 ? 'up' : 'down'}`);
      }
    } catch (problem) {
      setPending(null);
      await reload();
      fail(problem, pending.kind === 'archive' ? `The field “${pending.field.label}” could not be archived.` : `The field “${pending.field.label}” could not be moved.`);
    } finally {
      setWorking(null);
    }
  }

  return (
    <>
      <nav aria-label="Breadcrumb" className="oa-breadcrumb">
        <ol>
          <li><Link to={ADMIN_BASE}>Onboarding forms</Link></li>
          <li><span aria-current="page">{platformKey}</span></li>
        </ol>
      </nav>
      <PageTitle lead="The fields people are asked for after signing in, in the order they see them.">{title}</PageTitle>
      {notice ? <div ref={noticeRef} tabIndex={-1} className="oa-focus-target"><Notice tone="success">{notice}</Notice></div> : null}
      {failure ? (
        <div ref={failureRef} tabIndex={-1} className="error-summary" role="alert">
          <h2>{failure}</h2>
        </div>
      ) : null}
      <LoadState loading={list === null} error={list === null ? error : null} onRetry={() => void reload()} what="the form">
        {list ? (
          <>
            {canWrite ? null : <Notice title="Read only">{READ_ONLY_TEXT}</Notice>}
            <dl className="oa-facts">
              <div><dt>Platform key</dt><dd className="oa-key">{platformKey}</dd></div>
              <div><dt>Requirement version</dt><dd data-testid="requirement-version">{list.requirementVersion}</dd></div>
              <div><dt>Active fields</dt><dd>{active.length}</dd></div>
              {platform ? <div><dt>Onboarding</dt><dd>{modeWords(platform.defaultOnboardingMode)}</dd></div> : null}
            </dl>
            <p className="oa-muted">Every change to the form (adding, editing, moving or archiving a field) raises the requirement version by one, and everyone who had completed onboarding must complete it again.</p>

            <section className="panel" aria-labelledby="oa-fields-title">
              <div className="oa-section-head">
                <h2 id="oa-fields-title">Fields</h2>
                {canWrite ? <Link className="button" to={newFieldPath(platformKey)}>Add a field</Link> : null}
              </div>
              <div className="choice oa-toggle">
                <input id="oa-show-archived" type="checkbox" checked={showArchived} onChange={(event) => setShowArchived(event.target.checked)} />
                <label htmlFor="oa-show-archived">Show archived fields</label>
              </div>
              {error ? <p className="field-error" role="alert">{`The list could not be refreshed. ${error.message}`}</p> : null}
              {items.length === 0 ? (
                <p>{showArchived ? 'This platform has no field, active or archived.' : 'This platform asks nothing yet.'}</p>
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
              <h2 id="oa-form-preview-title">Preview of the form</h2>
              <p className="oa-muted">What people see, with the active fields in order. Try it: nothing you enter here is saved.</p>
              <FormPreview fields={active} />
            </section>
          </>
        ) : null}
      </LoadState>

      <ImpactDialog
        preview={pending?.preview ?? null}
        steps={pending?.kind === 'move' ? pending.plan.length : 1}
        title={pending?.kind === 'archive' ? `Archive “${pending.field.label}”?` : pending ? `Move “${pending.field.label}” ${pending.direction < 0 ? 'up' : 'down'}?` : ''}
        intro={pending ? dialogIntro(pending) : null}
        confirmLabel={pending?.kind === 'archive' ? 'Archive the field' : 'Move the field'}
        danger={pending?.kind === 'archive'}
        busy={working === 'confirm'}
        onConfirm={() => void confirm()}
        onCancel={() => setPending(null)}
      />
    </>
  );
}

function dialogIntro(pending: Pending): ReactNode {
  if (pending.kind === 'archive') {
    return <p>People will no longer be asked for it. The values already given are kept, and the field can still be seen with “Show archived fields”.</p>;
  }
  const where = pending.direction < 0 ? 'above' : 'below';
  return (
    <>
      <p>{`It will come ${where} “${pending.neighbour.label}”.`}</p>
      <p>{pending.plan.length > 1
        ? `Reordering changes the form too: the fields' sort orders are renumbered in ${pending.plan.length} changes, each raising the requirement version.`
        : 'Reordering changes the form too, so it raises the requirement version like any other change.'}</p>
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
  const named = (verb: string) => <>{`${verb} `}<span className="visually-hidden">{field.label}</span></>;
  return (
    <li className={`oa-field${field.archived ? ' oa-field-archived' : ''}`}>
      <div className="oa-field-main">
        <h3 className="oa-field-title">
          {field.label}
          {field.archived ? <span className="badge badge-muted">Archived</span> : null}
          {field.required ? <span className="badge badge-warning">Required</span> : <span className="badge">Optional</span>}
        </h3>
        <dl className="oa-field-facts">
          <div><dt>Key</dt><dd className="oa-key">{field.fieldKey}</dd></div>
          <div><dt>Type</dt><dd>{typeLabel(field.fieldType)}</dd></div>
          <div><dt>Stored in</dt><dd>{bound ? `Profile: ${bound.label}` : 'This platform (custom)'}</dd></div>
          <div><dt>Sort order</dt><dd>{field.sortOrder}</dd></div>
          {field.options.length > 0 ? <div><dt>Options</dt><dd>{field.options.length}</dd></div> : null}
        </dl>
      </div>
      <div className="oa-field-actions">
        {canWrite && !field.archived ? (
          <>
            <button type="button" className="button button-secondary oa-small" data-focus={`${field.fieldKey}:up`} disabled={!canMoveUp || busy} onClick={() => onMove(-1)}>
              {working === `${field.fieldKey}:up` ? 'Checking…' : named('Move up')}
            </button>
            <button type="button" className="button button-secondary oa-small" data-focus={`${field.fieldKey}:down`} disabled={!canMoveDown || busy} onClick={() => onMove(1)}>
              {working === `${field.fieldKey}:down` ? 'Checking…' : named('Move down')}
            </button>
          </>
        ) : null}
        <Link className="button button-secondary oa-small" data-focus={`${field.fieldKey}:edit`} to={fieldPath(platformKey, field.fieldKey)}>
          {named(canWrite ? 'Edit' : 'View')}
        </Link>
        {canWrite && !field.archived ? (
          <button type="button" className="button button-secondary oa-small oa-danger-text" data-focus={`${field.fieldKey}:archive`} disabled={busy} onClick={onArchive}>
            {working === `${field.fieldKey}:archive` ? 'Checking…' : named('Archive')}
          </button>
        ) : null}
      </div>
    </li>
  );
}
