import type { components } from '../../../generated/gateway.ts';
import type { Db } from '../../db/knex.ts';
import { findPlatformByKey, lockPlatformByKey } from '../registry/index.ts';
import { listPendingGraces, moveGraces, type PendingGraceRow } from './requirementGracesRepository.ts';
import { ApiError, validationError } from '../../errors/catalogue.ts';
import { recordAuditEvent, type Actor } from '../audit/audit.ts';

// Grace periods for requirement changes (issue 36): the enforcement a change is published
// with, and moving the date of the changes in grace. The rule that decides GRACE is
// src/domain/requirementGrace.ts; a change's grace is a row of requirement_graces written with
// the version it raises (bumpRequirementVersion), for field changes and documents alike.

export type RequirementGraceList = components['schemas']['RequirementGraceList'];

/**
 * The enforcement of a change from its `enforceAfter` (the API's query parameter, the CLI's
 * `--enforce-after`): null for immediately; a date for later, which must be in the future (a
 * past date would be an immediate change that looks like a grace).
 */
export function enforcementOf(enforceAfter: string | undefined, pointer = '/query/enforceAfter'): Date | null {
  if (enforceAfter === undefined) return null;
  const date = dateTimeOf(enforceAfter, pointer);
  if (date.getTime() <= Date.now()) throw validationError([{ pointer, message: 'must be in the future (leave it out to enforce the change immediately)' }]);
  return date;
}

/** RFC 3339 §5.6 `date-time`, its offset included: what the contract's `format: date-time` admits. */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/;

/**
 * The CLI hands its option over unchecked, and JavaScript's Date reads far more than RFC 3339:
 * "1" as the year 2001 (in the past: a move would enforce everything now) and a time without an
 * offset as the machine's local time. Only an RFC 3339 date-time is a date here.
 */
function dateTimeOf(value: string, pointer: string): Date {
  const date = new Date(value);
  if (!DATE_TIME.test(value) || Number.isNaN(date.getTime())) {
    throw validationError([{ pointer, message: 'must be a date-time with its offset (RFC 3339), such as 2027-01-15T00:00:00Z' }]);
  }
  // 9999-12-31T23:00:00-12:00 is in the year 10000 in UTC, which RFC 3339 cannot write: every
  // answer that carries the date (the list, graceUntil in the exchange) would break.
  if (date.getUTCFullYear() > 9999) throw validationError([{ pointer, message: 'must be before the year 10000 in UTC' }]);
  return date;
}

export async function listRequirementGraces(db: Db, platformKey: string): Promise<RequirementGraceList> {
  const platform = await findPlatformByKey(db, platformKey);
  if (!platform) throw platformNotFound(platformKey);
  return toList(platform.platformKey, platform.requirementVersion, await listPendingGraces(db, platform.id));
}

/**
 * Moves every version in grace to `enforceAfter` (not in the future: enforced now). The
 * platform row is locked as for a schema change, so a publication with a grace and a move
 * queue rather than interleave. Audited only when a version moved.
 */
export async function moveRequirementGraces(db: Db, platformKey: string, enforceAfter: string, actor: Actor): Promise<RequirementGraceList> {
  const date = dateTimeOf(enforceAfter, '/body/enforceAfter');
  return db.transaction(async (trx) => {
    const platform = await lockPlatformByKey(trx, platformKey);
    if (!platform) throw platformNotFound(platformKey);
    const moved = await moveGraces(trx, platform.id, date);
    if (moved.length > 0) {
      await recordAuditEvent(trx, { action: 'requirement_grace.move', platformKey: platform.platformKey, changedFields: ['enforceAfter'] }, actor);
    }
    return toList(platform.platformKey, platform.requirementVersion, await listPendingGraces(trx, platform.id));
  });
}

function toList(platformKey: string, requirementVersion: number, rows: readonly PendingGraceRow[]): RequirementGraceList {
  return {
    platformKey,
    requirementVersion,
    items: rows.map((row) => ({ requirementVersion: row.requirementVersion, enforceAfter: row.enforceAfter.toISOString() })),
  };
}

function platformNotFound(platformKey: string): ApiError {
  return new ApiError('PLATFORM_NOT_FOUND', `No platform has the key ${platformKey}.`);
}
