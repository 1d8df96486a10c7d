import type { Db } from '../db/knex.ts';
import type { OnboardingStatus, OnboardingStatusValue } from '../domain/types.ts';
import type { PlatformRow } from '../db/repositories/platforms.ts';
import { activeFieldsWithValues, bootstrapMembership, type FieldWithValue } from '../db/repositories/onboarding.ts';

export type { OnboardingStatus, OnboardingStatusValue } from '../domain/types.ts';

/** An empty scalar is null (or a blank string); an empty multi-select is []. */
export function isEmptyValue(value: unknown): boolean {
  if (value === null || value === undefined) return true;
  if (typeof value === 'string') return value.trim() === '';
  if (Array.isArray(value)) return value.length === 0;
  return false;
}

/**
 * The status rule (spec: States and transitions, onboarding):
 * - COMPLETE while no active required field is empty and the user completed the
 *   platform's current requirement version (a schema change bumps the version,
 *   which turns COMPLETE back into IN_PROGRESS). A platform with no active field
 *   has nothing to ask, so it is COMPLETE at once.
 * - otherwise IN_PROGRESS once any active field has a value, else NOT_STARTED.
 */
export function calculateStatus(
  platform: Pick<PlatformRow, 'requirementVersion' | 'centralOnboardingEnabled'>,
  fields: readonly FieldWithValue[],
  completedRequirementVersion: number | null,
): OnboardingStatus {
  const missingFields = fields.filter((field) => field.required && isEmptyValue(field.value)).map((field) => field.fieldKey);
  const completed = fields.length === 0 || completedRequirementVersion === platform.requirementVersion;
  let status: OnboardingStatusValue;
  if (missingFields.length === 0 && completed) status = 'COMPLETE';
  else if (fields.some((field) => !isEmptyValue(field.value))) status = 'IN_PROGRESS';
  else status = 'NOT_STARTED';
  return {
    status,
    requirementVersion: platform.requirementVersion,
    missingFields,
    canCompleteCentrally: platform.centralOnboardingEnabled,
  };
}

/** Login and resume: make sure the membership exists, then evaluate on the server (client flags are never trusted). */
export async function bootstrapAndEvaluate(db: Db, userId: string, platform: PlatformRow): Promise<OnboardingStatus> {
  const membership = await bootstrapMembership(db, userId, platform.id);
  const fields = await activeFieldsWithValues(db, platform.id, userId);
  return calculateStatus(platform, fields, membership.completedRequirementVersion);
}
