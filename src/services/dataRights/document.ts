import type { Db } from '../../db/knex.ts';
import type { DocumentSink } from './chunkStore.ts';
import { readPersonSnapshot, type SnapshotReader } from './documentRepository.ts';

/** The document's `format`: a reader can tell versions of this layout apart. */
export const DATA_EXPORT_FORMAT = 'auth-gateway-data-export/1';

/**
 * Why one JSON document and not a zip: it needs no new dependency, any tool opens it, and it
 * streams in one pass (a zip's README would be one more member to get right, with its own
 * central directory written at the end). The README is the document's first member, `readme`.
 */
export const DATA_EXPORT_README: Readonly<Record<string, string>> = Object.freeze({
  readme: 'This explanation: what each part of the document holds.',
  format: `The layout of this document (${DATA_EXPORT_FORMAT}).`,
  exportedAt: 'When the gateway wrote this document (every part is of that same moment).',
  user: 'Your account at the gateway: its id, your subject at the identity provider, your e-mail, when it was created, last signed in, and deleted (if so).',
  profile: 'Your shared profile: the names, date of birth, phone, country and language that platforms may receive.',
  picture: 'Your profile picture as stored: the image itself (base64 WebP) when the gateway keeps it, otherwise its address in the picture store.',
  platforms: 'Each platform you use (you signed in to it, or answered its onboarding): when you first used it, last signed in, and the requirement version of its onboarding you completed.',
  onboarding: 'Your answers to each platform\'s onboarding questions, per platform, with the field they answer and the requirement version you completed there. A profile question a platform asks before sharing (`sharing` `ask`) or keeps to itself (`own`) has its answer here: `shared` says you confirmed the value you had given another platform (`sharedFrom` names it; `profile` when you had entered it in the account center), otherwise you entered it for this platform. `profileValuesShared` lists the profile properties the platform reads from `profile` (its `shared` questions).',
  agreements: 'Your record of the documents of each platform (terms, privacy notices, consents such as a newsletter), oldest first, including platforms you have left: each time you accepted a version or withdrew your consent (`action`), on which platform, the document, its version, its title and the language you were shown it in, when, the gateway session it happened in, and who recorded it (`recordedVia`: `session`, you in the account center; `bearer`, an app signed in as you; `platform`, the platform itself, from what you did on its own pages; empty for rows from before this was kept). `sha256` is the fingerprint (SHA-256) of the public text you were shown, so the platform\'s published text can be checked against it.',
  sessions: 'Every sign-in (gateway session) still on record, live or ended: when, from which browser and coarse address, how you authenticated, which platforms received it, and why it ended. Never the session\'s tokens.',
  supportAccess: 'Each time support asked to see a platform as you (support access), oldest first: the platform, who asked (the operator\'s subject and name), why, for how long, whether you were asked (`approve`) or told (`notify`), when you answered, when it ran and ended, who ended it, and the session it signed in with.',
  auditEvents: 'The audit trail about you: changes you made (with the properties named, never their values; `actorVia` says how: your browser session, an app signed in as you, or a platform acting for you, named in `actorPlatformKey`), actions on your sessions, and the steps of support access to your account (`supportAccessRequestId`, the `id` of the request in `supportAccess`; on its end, `endedBy` says who ended it).',
  secrets: 'Not included, on purpose: no token, password, digest, sealed value or credential is ever part of this document.',
});

/**
 * Writes the person's document to `sink`, member by member, in the order of the README; lists
 * are written as they are read (cursors), so memory does not grow with the person's history.
 */
export async function writeDataExportDocument(db: Db, userId: string, sink: DocumentSink, now: Date = new Date()): Promise<number> {
  await readPersonSnapshot(db, userId, async (read) => {
    const user = await read.user();
    if (!user) throw new Error('the export\'s user does not exist');
    await sink.write(`{"readme":${JSON.stringify(DATA_EXPORT_README)},"format":${JSON.stringify(DATA_EXPORT_FORMAT)},"exportedAt":${JSON.stringify(now.toISOString())}`);
    await member(sink, 'user', user);
    await member(sink, 'profile', await read.profile());
    await member(sink, 'picture', await pictureSection(read));
    await member(sink, 'platforms', await read.platforms());
    await member(sink, 'onboarding', await read.onboarding());
    await list(sink, 'agreements', read.agreements());
    await list(sink, 'sessions', read.sessions());
    await list(sink, 'supportAccess', read.supportAccess());
    await list(sink, 'auditEvents', read.auditEvents());
    await sink.write('}\n');
  });
  return sink.close();
}

async function pictureSection(read: SnapshotReader): Promise<Record<string, unknown> | null> {
  const picture = await read.picture();
  if (!picture) return null;
  return {
    mediaType: 'image/webp',
    width: picture.width,
    height: picture.height,
    createdAt: picture.createdAt,
    ...(picture.image ? { base64: picture.image.toString('base64') } : { url: picture.pictureUrl }),
  };
}

async function member(sink: DocumentSink, name: string, value: unknown): Promise<void> {
  await sink.write(`,${JSON.stringify(name)}:${JSON.stringify(value)}`);
}

async function list(sink: DocumentSink, name: string, rows: AsyncIterable<unknown>): Promise<void> {
  await sink.write(`,${JSON.stringify(name)}:[`);
  let first = true;
  for await (const row of rows) {
    await sink.write(first ? JSON.stringify(row) : `,${JSON.stringify(row)}`);
    first = false;
  }
  await sink.write(']');
}
