import type { components } from '../../../generated/gateway.ts';
import type { Db } from '../../db/knex.ts';
import type { FieldDefinitionRow, FieldDefinitionSettings } from '../../domain/onboarding.ts';
import { findPlatformByKey, lockPlatformByKey, type PlatformRow } from '../registry/index.ts';
import { activeFieldBindingProfile, archiveFieldRow, bumpRequirementVersion, insertFieldRow, listFieldRows, lockFieldRow, markFieldRequirementVersion, updateFieldRow } from './onboardingFieldsRepository.ts';
import { countCompleteMemberships, countCompleteMembershipsMeeting } from './onboardingRepository.ts';
import { ApiError, validationError } from '../../errors/catalogue.ts';
import { recordAuditEvent, type Actor } from '../audit/audit.ts';
import { validateFieldCreate, validateFieldPatch } from './definitions.ts';

// Administration of a platform's onboarding schema (spec: Onboarding schema), shared by the
// API and the operator CLI. Every change that really changes something, and only such a
// change, runs in one transaction that:
//   - locks the platform row, so concurrent schema writes queue and none loses its increment;
//   - writes the definition;
//   - raises the platform's requirement version by exactly one, which turns every COMPLETE
//     onboarding of the platform back into IN_PROGRESS (the status is calculated against it);
//   - records the audit event (actor, platform, field key, changed properties; never values).
// A dry run validates and answers what would happen, and writes nothing.

export type FieldView = components['schemas']['OnboardingFieldDefinition'];
export type FieldList = components['schemas']['OnboardingFieldList'];
export type SchemaChangePreview = components['schemas']['OnboardingSchemaChangePreview'];
export type FieldCreateInput = components['schemas']['OnboardingFieldCreateRequest'];
export type FieldUpdateInput = components['schemas']['OnboardingFieldUpdateRequest'];

/** What a write answers: the definition as stored, or (dry run) what would happen. */
export type SchemaChangeResult = { applied: true; field: FieldView } | { applied: false; preview: SchemaChangePreview };

export interface SchemaChangeOptions {
  dryRun?: boolean;
  /** When the change is enforced (issue 36, grace.ts enforcementOf): null or absent for immediately. */
  enforceAfter?: Date | null;
}

export async function listFieldDefinitions(db: Db, platformKey: string, includeArchived: boolean): Promise<FieldList> {
  const platform = await findPlatformByKey(db, platformKey);
  if (!platform) throw platformNotFound(platformKey);
  const rows = await listFieldRows(db, platform.id, includeArchived);
  return { platformKey, requirementVersion: platform.requirementVersion, items: rows.map(toFieldView) };
}

/** One definition per request; a duplicate key is 409 CONFLICT (also in a dry run). */
export async function createFieldDefinition(db: Db, platformKey: string, input: FieldCreateInput, actor: Actor, options: SchemaChangeOptions = {}): Promise<SchemaChangeResult> {
  const settings = validateFieldCreate(input);
  return inSchemaChange(db, platformKey, async (trx, platform) => {
    const existing = await lockFieldRow(trx, platform.id, settings.fieldKey);
    if (existing) throw new ApiError('CONFLICT', `The platform already has a field ${settings.fieldKey}.`);
    await requireFreeProfileBinding(trx, platform, settings);
    if (options.dryRun) return preview(trx, platform, draftRow(platform, settings), ['fieldKey', ...Object.keys(input).filter((key) => key !== 'fieldKey')], options);
    const row = await insertFieldRow(trx, platform.id, settings);
    if (!row) throw new ApiError('CONFLICT', `The platform already has a field ${settings.fieldKey}.`);
    await applied(trx, platform, actor, 'onboarding_field.create', row, ['fieldKey', ...Object.keys(input).filter((key) => key !== 'fieldKey')], options);
    return { applied: true, field: toFieldView(row) };
  });
}

/**
 * PATCH: the merged definition is checked against the create rules. An update that
 * changes nothing writes nothing, records nothing and does not bump the version.
 * `patch` may be worked out from the stored definition (the CLI changes one key of
 * `validation` or `uiConfig`, which the API replaces whole): it is then called with the row
 * locked, so that two such updates at once cannot undo each other.
 */
export async function updateFieldDefinition(
  db: Db,
  platformKey: string,
  fieldKey: string,
  patch: FieldUpdateInput | ((current: FieldDefinitionRow) => FieldUpdateInput),
  actor: Actor,
  options: SchemaChangeOptions = {},
): Promise<SchemaChangeResult> {
  return inSchemaChange(db, platformKey, async (trx, platform) => {
    const current = await lockFieldRow(trx, platform.id, fieldKey);
    if (!current) throw fieldNotFound(fieldKey);
    const { merged, changed } = validateFieldPatch(current, typeof patch === 'function' ? patch(current) : patch);
    if (!current.archivedAt) await requireFreeProfileBinding(trx, platform, merged);
    if (options.dryRun) return preview(trx, platform, { ...current, ...merged }, changed, options);
    if (changed.length === 0) return { applied: true, field: toFieldView(current) };
    const changes = Object.fromEntries(changed.map((setting) => [setting, merged[setting]])) as Partial<FieldDefinitionSettings>;
    const row = await updateFieldRow(trx, current.id, changes);
    await applied(trx, platform, actor, 'onboarding_field.update', row, changed, options);
    return { applied: true, field: toFieldView(row) };
  });
}

/** Soft: the definition stops counting, its values are kept. Archiving twice changes nothing the second time. */
export async function archiveFieldDefinition(db: Db, platformKey: string, fieldKey: string, actor: Actor, options: SchemaChangeOptions = {}): Promise<SchemaChangeResult> {
  return inSchemaChange(db, platformKey, async (trx, platform) => {
    const current = await lockFieldRow(trx, platform.id, fieldKey);
    if (!current) throw fieldNotFound(fieldKey);
    const changed = current.archivedAt ? [] : ['archived'];
    if (options.dryRun) return preview(trx, platform, { ...current, archivedAt: current.archivedAt ?? new Date() }, changed, options);
    if (changed.length === 0) return { applied: true, field: toFieldView(current) };
    const row = await archiveFieldRow(trx, current.id);
    await applied(trx, platform, actor, 'onboarding_field.archive', row, changed, options);
    return { applied: true, field: toFieldView(row) };
  });
}

/** A platform binds each canonical profile property with one active field at most: two would write one value. */
async function requireFreeProfileBinding(trx: Db, platform: PlatformRow, field: Pick<FieldDefinitionSettings, 'fieldKey' | 'profileField'>): Promise<void> {
  if (!field.profileField) return;
  const other = await activeFieldBindingProfile(trx, platform.id, field.profileField, field.fieldKey);
  if (other) {
    throw validationError([{ pointer: '/body/profileField', message: `is already bound by the field ${other} of this platform` }]);
  }
}

async function inSchemaChange<T>(db: Db, platformKey: string, work: (trx: Db, platform: PlatformRow) => Promise<T>): Promise<T> {
  return db.transaction(async (trx) => {
    const platform = await lockPlatformByKey(trx, platformKey);
    if (!platform) throw platformNotFound(platformKey);
    return work(trx, platform);
  });
}

/**
 * The settings whose change can leave a person who met the field without a value: it becomes
 * required, or its value is read from elsewhere (another source, property or sharing rule).
 * Such a change (and a creation) is what a grace of its version covers; a label or an order
 * is not, so a field required before stays in force for whoever empties it (issue 36 review).
 */
const ASKS_ANEW: ReadonlySet<string> = new Set(['required', 'source', 'profileField', 'sharing']);

async function applied(
  trx: Db,
  platform: PlatformRow,
  actor: Actor,
  action: 'onboarding_field.create' | 'onboarding_field.update' | 'onboarding_field.archive',
  field: FieldDefinitionRow,
  changed: readonly string[],
  options: SchemaChangeOptions,
): Promise<void> {
  const enforceAfter = options.enforceAfter ?? null;
  const version = await bumpRequirementVersion(trx, platform.id, enforceAfter);
  if (action === 'onboarding_field.create' || (action === 'onboarding_field.update' && changed.some((setting) => ASKS_ANEW.has(setting)))) {
    await markFieldRequirementVersion(trx, field.id, version);
  }
  await recordAuditEvent(trx, { action, platformKey: platform.platformKey, fieldKey: field.fieldKey, changedFields: enforceAfter ? [...changed, 'enforceAfter'] : changed }, actor);
}

/**
 * What a change would do: no write, no audit, no version bump. The users it reopens sign in
 * with GRACE until `enforceAfter` when one is given; those of them who already have a value
 * for the field as it would be (or for whom it would require nothing) only confirm.
 */
async function preview(trx: Db, platform: PlatformRow, field: FieldDefinitionRow, changed: readonly string[], options: SchemaChangeOptions): Promise<SchemaChangeResult> {
  const changes = changed.length > 0;
  const reopenedUsers = changes ? await countCompleteMemberships(trx, platform.id, platform.requirementVersion) : 0;
  const meetingUsers = changes && reopenedUsers > 0 ? await countCompleteMembershipsMeeting(trx, platform.id, platform.requirementVersion, field) : 0;
  const enforceAfter = options.enforceAfter ?? null;
  return {
    applied: false,
    preview: {
      dryRun: true,
      changed: changes,
      changedFields: [...changed],
      field: toFieldView(field),
      requirementVersion: changes ? platform.requirementVersion + 1 : platform.requirementVersion,
      reopenedUsers,
      enforceAfter: enforceAfter?.toISOString() ?? null,
      graceUsers: enforceAfter ? reopenedUsers : 0,
      meetingUsers,
    },
  };
}

function draftRow(platform: PlatformRow, settings: FieldDefinitionSettings): FieldDefinitionRow {
  const now = new Date();
  return { ...settings, id: '', platformId: platform.id, archivedAt: null, createdAt: now, updatedAt: now };
}

export function toFieldView(row: FieldDefinitionRow): FieldView {
  return {
    fieldKey: row.fieldKey,
    label: row.label,
    fieldType: row.fieldType,
    source: row.source,
    profileField: row.profileField,
    sharing: row.sharing,
    required: row.required,
    sortOrder: row.sortOrder,
    options: row.options,
    validation: row.validation,
    uiConfig: row.uiConfig,
    placeholder: row.placeholder,
    description: row.description,
    translations: row.translations,
    archived: row.archivedAt !== null,
    archivedAt: row.archivedAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

function platformNotFound(platformKey: string): ApiError {
  return new ApiError('PLATFORM_NOT_FOUND', `No platform has the key ${platformKey}.`);
}

function fieldNotFound(fieldKey: string): ApiError {
  return new ApiError('FIELD_NOT_FOUND', `The platform has no onboarding field ${fieldKey}.`);
}
