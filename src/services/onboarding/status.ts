import type { Db } from '../../db/knex.ts';
import type { OnboardingStatus, OnboardingStatusValue } from '../../domain/types.ts';
import type { PlatformRow } from '../registry/index.ts';
import { activeFieldsWithValues, bootstrapMembership, findCompletedRequirementVersion, type FieldWithValue } from './onboardingRepository.ts';
import type { DocumentStanding } from '../../domain/documents.ts';
import { acceptedDocumentsOf, isMissing, missingDocumentsOf } from '../documents/status.ts';
import { graceDeadline, versionsAfter, type PendingGraces } from '../../domain/requirementGrace.ts';
import { isEmptyValue } from './values.ts';

export type { OnboardingStatus, OnboardingStatusValue } from '../../domain/types.ts';

/**
 * The status rule (spec: States and transitions, onboarding), always calculated:
 * - COMPLETE while no active required field is empty and the user completed the
 *   platform's current requirement version, and no required document's current material
 *   version is unaccepted (issue 25). Every schema change, and every publication of a
 *   material document version, bumps the version, which turns COMPLETE back into
 *   IN_PROGRESS. A platform with no active field asks only for its documents.
 * - GRACE (issue 36) when what keeps it from COMPLETE was all introduced by changes whose
 *   enforcement date is still to come (requirementGrace.ts): on the fields' side, every
 *   version raised since the person completed one; on the documents' side, the blocking
 *   versions not accepted. The login goes on; `graceUntil` is the earliest of those dates.
 *   A person who never completed the platform's onboarding gets no grace on its fields, nor
 *   does one missing a field that asked for its value before they completed (emptied since,
 *   through the profile page or another platform's form): a grace covers only the fields its
 *   change asked for anew (`requiredSince`, set by schema.ts).
 * - otherwise IN_PROGRESS once any active field has a value (NOT_STARTED becomes
 *   IN_PROGRESS at the first stored non-empty value), or once the user has completed an
 *   earlier version;
 * - otherwise NOT_STARTED.
 */
export function calculateStatus(
  platform: Pick<PlatformRow, 'requirementVersion' | 'centralOnboardingEnabled'>,
  fields: readonly (Pick<FieldWithValue, 'fieldKey' | 'required' | 'value'> & { requiredSince?: number | null })[],
  completedRequirementVersion: number | null,
  documents: readonly DocumentStanding[],
  graces: PendingGraces = {},
): OnboardingStatus {
  const missing = fields.filter((field) => field.required && isEmptyValue(field.value));
  const missingFields = missing.map((field) => field.fieldKey);
  const missingDocuments = missingDocumentsOf(documents);
  const acceptedDocuments = acceptedDocumentsOf(documents);
  const completed = fields.length === 0 || completedRequirementVersion === platform.requirementVersion;
  const graceUntil = missingFields.length === 0 && missingDocuments.length === 0 && completed
    ? null
    : graceOf(platform.requirementVersion, fields.length > 0, completed && missingFields.length === 0, missing.map((field) => field.requiredSince ?? null), completedRequirementVersion, documents, graces);
  let status: OnboardingStatusValue;
  if (missingFields.length === 0 && missingDocuments.length === 0 && completed) status = 'COMPLETE';
  else if (graceUntil !== null) status = 'GRACE';
  else if (completedRequirementVersion !== null || acceptedDocuments.length > 0 || fields.some((field) => !isEmptyValue(field.value))) status = 'IN_PROGRESS';
  else status = 'NOT_STARTED';
  return {
    status,
    requirementVersion: platform.requirementVersion,
    missingFields,
    canCompleteCentrally: platform.centralOnboardingEnabled,
    missingDocuments,
    acceptedDocuments,
    ...(graceUntil === null ? {} : { graceUntil }),
  };
}

/**
 * The grace deadline of a person who is not COMPLETE, or null when something in force is
 * missing. Both sides must be met or in grace; the deadline is the earliest of theirs.
 */
function graceOf(
  requirementVersion: number,
  hasFields: boolean,
  fieldsMet: boolean,
  missingSince: readonly (number | null)[],
  completedRequirementVersion: number | null,
  documents: readonly DocumentStanding[],
  graces: PendingGraces,
): string | null {
  const deadlines: string[] = [];
  if (hasFields && !fieldsMet) {
    if (completedRequirementVersion === null || completedRequirementVersion >= requirementVersion) return null;
    // A missing field asked for before the person completed (or since before issue 36) is in force.
    if (missingSince.some((since) => since === null || since <= completedRequirementVersion)) return null;
    const deadline = graceDeadline(versionsAfter(completedRequirementVersion, requirementVersion), graces);
    if (deadline === null) return null;
    deadlines.push(deadline);
  }
  for (const document of documents) {
    if (!isMissing(document)) continue;
    const deadline = graceDeadline(document.blockingAbove ?? [null], graces);
    if (deadline === null) return null;
    deadlines.push(deadline);
  }
  if (deadlines.length === 0) return null;
  return deadlines.reduce((earliest, deadline) => (Date.parse(deadline) < Date.parse(earliest) ? deadline : earliest));
}

export interface EvaluatedOnboarding {
  status: OnboardingStatus;
  fields: FieldWithValue[];
  completedRequirementVersion: number | null;
}

/** Make sure the membership exists, then evaluate on the server (client flags are never trusted). */
export async function evaluateOnboarding(db: Db, userId: string, platform: PlatformRow, options: { bootstrap?: boolean } = {}): Promise<EvaluatedOnboarding> {
  // A support session (issue 35) reads the status without making the person a member.
  const membership = options.bootstrap === false
    ? { completedRequirementVersion: await findCompletedRequirementVersion(db, userId, platform.id) }
    : await bootstrapMembership(db, userId, platform.id);
  const { fields, documents, graces } = await activeFieldsWithValues(db, platform.id, userId);
  return {
    status: calculateStatus(platform, fields, membership.completedRequirementVersion, documents, graces),
    fields,
    completedRequirementVersion: membership.completedRequirementVersion,
  };
}

/** Login and resume: the calculated status only. */
export async function bootstrapAndEvaluate(db: Db, userId: string, platform: PlatformRow): Promise<OnboardingStatus> {
  return (await evaluateOnboarding(db, userId, platform)).status;
}
