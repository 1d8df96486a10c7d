import type { Db } from '../db/knex.ts';
import { findPlatformByKey } from '../services/registry/platformsRepository.ts';
import { recordAuditEvent, DEVSTACK_ACTOR } from '../services/audit/audit.ts';
import { createPlatform, rotatePlatformCredentials, updatePlatform, type PlatformCreateInput, type RegistryRules } from '../services/registry/index.ts';
import { createFieldDefinition, listFieldDefinitions, updateFieldDefinition, type FieldCreateInput } from '../services/onboarding/schema.ts';
import { sha256 } from '../security/crypto.ts';
import type { PublishedPlatformCredentials } from '../security/devCredentials.ts';
import { createDraft, listPlatformDocuments, publishVersion } from '../services/documents/administration.ts';
import type { DocumentKind } from '../domain/documents.ts';

/**
 * The dev stack's explicit allowance: its demo platforms receive their logout tokens on
 * localhost (the example BFF). The dev stack never runs in production (startDevStack refuses),
 * and its worker allows loopback too (the configuration's `outbound.allowLoopback`).
 */
const DEVSTACK_RULES: RegistryRules = Object.freeze({ requireHttps: false, outbound: Object.freeze({ allowedPrivateRanges: [], allowLoopback: true }) });

/**
 * A demo database seeded before fields had translations gets the seeded ones, once: only a
 * field with none at all (an administrator's own translations are never overwritten).
 */
async function addMissingTranslations(db: Db, platformKey: string, fields: readonly FieldCreateInput[]): Promise<void> {
  const stored = await listFieldDefinitions(db, platformKey, false);
  for (const field of fields) {
    const current = stored.items.find((item) => item.fieldKey === field.fieldKey);
    if (!field.translations || !current || Object.keys(current.translations).length > 0) continue;
    await updateFieldDefinition(db, platformKey, field.fieldKey, { translations: field.translations }, DEVSTACK_ACTOR);
  }
}

/**
 * A demo database seeded before a field existed, or before it was bound to the profile with a
 * sharing rule (issue 36: the central demo platform asks before reusing the phone number given
 * to the other demo platform), gets it, once. Other changes an administrator made stay.
 */
async function addMissingFields(db: Db, platformKey: string, fields: readonly FieldCreateInput[]): Promise<void> {
  const stored = await listFieldDefinitions(db, platformKey, true);
  for (const field of fields) {
    const current = stored.items.find((item) => item.fieldKey === field.fieldKey);
    if (!current) {
      await createFieldDefinition(db, platformKey, field, DEVSTACK_ACTOR);
    } else if (field.source === 'PROFILE_FIELD' && !current.archived && (current.source !== 'PROFILE_FIELD' || current.profileField !== field.profileField || (field.sharing && current.sharing !== field.sharing))) {
      await updateFieldDefinition(db, platformKey, field.fieldKey, { source: 'PROFILE_FIELD', profileField: field.profileField ?? null, fieldType: field.fieldType, sharing: field.sharing ?? 'shared' }, DEVSTACK_ACTOR);
    }
  }
}

/**
 * A demo platform of the dev stack: created once (with its onboarding fields), and at every
 * start brought up to date: its URLs follow DEMO_BFF_PORT and ACCOUNT_CENTER_URL, and its
 * credentials are the published development ones (src/security/devCredentials.ts), so they
 * stay the same from one start to the next. Every change is audited as actor `devstack`;
 * a start that finds everything in place writes nothing.
 *
 * `published` is null when the dev stack runs on a database of DATABASE_URL (possibly shared):
 * such a database never gets the published secrets, and the demo gets a fresh one each start.
 */
export async function seedDemoPlatform(
  db: Db,
  platform: PlatformCreateInput,
  published: PublishedPlatformCredentials | null,
  fields: readonly FieldCreateInput[] = [],
): Promise<{ clientId: string; clientSecret: string }> {
  let existing = await findPlatformByKey(db, platform.platformKey);
  if (!existing) {
    const created = await createPlatform(db, platform, DEVSTACK_ACTOR, DEVSTACK_RULES);
    for (const field of fields) await createFieldDefinition(db, platform.platformKey, field, DEVSTACK_ACTOR);
    if (!published) return { clientId: created.platform.clientId!, clientSecret: created.clientSecret };
    existing = await findPlatformByKey(db, platform.platformKey);
  } else {
    // Only what differs is written (and audited): another DEMO_BFF_PORT, a database seeded
    // before there was a back-channel logout URL.
    await updatePlatform(
      db,
      platform.platformKey,
      {
        callbackUrl: platform.callbackUrl ?? null,
        allowedReturnUrls: platform.allowedReturnUrls ?? [],
        ...(platform.backchannelLogoutUrl !== undefined ? { backchannelLogoutUrl: platform.backchannelLogoutUrl } : {}),
        ...(platform.eventReceiverUrl !== undefined ? { eventReceiverUrl: platform.eventReceiverUrl } : {}),
        ...(platform.eventDelivery !== undefined ? { eventDelivery: platform.eventDelivery } : {}),
        ...(platform.supportAccess !== undefined ? { supportAccess: platform.supportAccess } : {}),
        ...(platform.supportSignInUrl !== undefined ? { supportSignInUrl: platform.supportSignInUrl } : {}),
      },
      DEVSTACK_ACTOR,
      DEVSTACK_RULES,
    );
    await addMissingFields(db, platform.platformKey, fields);
    await addMissingTranslations(db, platform.platformKey, fields);
  }
  if (!published) {
    const rotated = await rotatePlatformCredentials(db, platform.platformKey, DEVSTACK_ACTOR);
    return { clientId: rotated.clientId, clientSecret: rotated.clientSecret };
  }
  await usePublishedCredentials(db, platform.platformKey, published);
  return { clientId: published.clientId, clientSecret: published.clientSecret };
}

/**
 * Sets the published client id and secret digest when they differ (a new platform, or a
 * database from before they were published). The registry never sets a chosen secret, so this
 * dev-only step writes the row itself, in one transaction with its audit row.
 */
async function usePublishedCredentials(db: Db, platformKey: string, published: PublishedPlatformCredentials): Promise<void> {
  const digest = sha256(published.clientSecret);
  await db.transaction(async (trx) => {
    const row = (await trx('platforms').where({ platform_key: platformKey }).forUpdate().first('client_id', 'client_secret_digest')) as
      | { client_id: string | null; client_secret_digest: Buffer | null }
      | undefined;
    if (!row) return;
    const sameId = row.client_id === published.clientId;
    const sameSecret = row.client_secret_digest !== null && Buffer.compare(row.client_secret_digest, digest) === 0;
    if (sameId && sameSecret) return;
    await trx('platforms')
      .where({ platform_key: platformKey })
      .update({ client_id: published.clientId, client_secret_digest: digest, credentials_rotated_at: trx.fn.now() });
    const changedFields = sameId ? ['clientSecret'] : ['clientId', 'clientSecret'];
    await recordAuditEvent(trx, { action: 'platform.rotate_credentials', platformKey, changedFields }, DEVSTACK_ACTOR);
  });
}

/** A document the dev stack publishes for a demo platform (version 1, in English). */
export interface DemoDocument {
  documentKey: string;
  kind: DocumentKind;
  title: string;
  markdown: string;
}

/**
 * Publishes each demo document the platform does not have yet (a new database, or one seeded
 * before documents existed), as actor `devstack`; a start that finds them in place writes
 * nothing. A first version is always asked of everyone, so a new person accepts them in the
 * account center before reaching the platform.
 */
export async function seedDemoDocuments(db: Db, platformKey: string, documents: readonly DemoDocument[]): Promise<void> {
  const existing = new Set((await listPlatformDocuments(db, platformKey)).items.map((document) => document.documentKey));
  for (const document of documents) {
    if (existing.has(document.documentKey)) continue;
    const draft = await createDraft(db, platformKey, document.documentKey, {
      kind: document.kind,
      material: true,
      defaultLanguage: 'en',
      texts: { en: { title: document.title, markdown: document.markdown } },
    });
    await publishVersion(db, platformKey, document.documentKey, draft.version, DEVSTACK_ACTOR);
  }
}
