// The schema operations the editor calls, typed from the contract, each as a dry run
// (`?dryRun=true`: the impact, nothing written) or for real. A failure is an ApiProblem.
import { call, type Api, type Schemas } from '../../../api.ts';
import type { ChangePreview, CreateBody, Definition, UpdateBody } from './model.ts';

export type FieldList = Schemas['OnboardingFieldList'];
export type Platform = Schemas['Platform'];

const FIELDS = '/v1/platforms/{platformKey}/onboarding/fields';
const FIELD = '/v1/platforms/{platformKey}/onboarding/fields/{fieldKey}';

function isPreview(answer: Definition | ChangePreview): answer is ChangePreview {
  return 'dryRun' in answer;
}

function preview(answer: Definition | ChangePreview): ChangePreview {
  if (!isPreview(answer)) throw new Error('The gateway did not answer the dry run with a preview.');
  return answer;
}

function definition(answer: Definition | ChangePreview): Definition {
  if (isPreview(answer)) throw new Error('The gateway answered a change with a preview.');
  return answer;
}

export function listFields(api: Api, platformKey: string, includeArchived: boolean): Promise<FieldList> {
  return call(api.GET(FIELDS, { params: { path: { platformKey }, query: includeArchived ? { includeArchived: true } : {} } }));
}

/** The query of a write: a dry run, and when the change is enforced (issue 36; absent: immediately). */
function writeQuery(dryRun: boolean, enforceAfter: string | null): { dryRun?: true; enforceAfter?: string } {
  return { ...(dryRun ? { dryRun: true as const } : {}), ...(enforceAfter ? { enforceAfter } : {}) };
}

export async function createField(api: Api, platformKey: string, body: CreateBody, dryRun: true): Promise<ChangePreview>;
export async function createField(api: Api, platformKey: string, body: CreateBody, dryRun: false, enforceAfter?: string | null): Promise<Definition>;
export async function createField(api: Api, platformKey: string, body: CreateBody, dryRun: boolean, enforceAfter: string | null = null): Promise<Definition | ChangePreview> {
  const answer = await call<Definition | ChangePreview>(api.POST(FIELDS, { params: { path: { platformKey }, query: writeQuery(dryRun, enforceAfter) }, body }));
  return dryRun ? preview(answer) : definition(answer);
}

export async function updateField(api: Api, platformKey: string, fieldKey: string, body: UpdateBody, dryRun: true): Promise<ChangePreview>;
export async function updateField(api: Api, platformKey: string, fieldKey: string, body: UpdateBody, dryRun: false, enforceAfter?: string | null): Promise<Definition>;
export async function updateField(api: Api, platformKey: string, fieldKey: string, body: UpdateBody, dryRun: boolean, enforceAfter: string | null = null): Promise<Definition | ChangePreview> {
  const answer = await call<Definition | ChangePreview>(api.PATCH(FIELD, { params: { path: { platformKey, fieldKey }, query: writeQuery(dryRun, enforceAfter) }, body }));
  return dryRun ? preview(answer) : definition(answer);
}

export async function archiveField(api: Api, platformKey: string, fieldKey: string, dryRun: true): Promise<ChangePreview>;
export async function archiveField(api: Api, platformKey: string, fieldKey: string, dryRun: false, enforceAfter?: string | null): Promise<Definition>;
export async function archiveField(api: Api, platformKey: string, fieldKey: string, dryRun: boolean, enforceAfter: string | null = null): Promise<Definition | ChangePreview> {
  const answer = await call<Definition | ChangePreview>(api.DELETE(FIELD, { params: { path: { platformKey, fieldKey }, query: writeQuery(dryRun, enforceAfter) } }));
  return dryRun ? preview(answer) : definition(answer);
}

/** One page of platforms (needs platforms:admin). */
export function listPlatforms(api: Api, cursor: string | null): Promise<Schemas['PlatformList']> {
  return call(api.GET('/v1/platforms', { params: { query: cursor ? { limit: 100, cursor } : { limit: 100 } } }));
}

/** One platform (needs platforms:admin): its name and onboarding mode, for the heading. */
export function getPlatform(api: Api, platformKey: string): Promise<Platform> {
  return call(api.GET('/v1/platforms/{platformKey}', { params: { path: { platformKey } } }));
}
