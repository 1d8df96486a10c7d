import { readFile } from 'node:fs/promises';
import { CLI_ACTOR } from '../services/audit/audit.ts';
import { enforcementOf } from '../services/onboarding/grace.ts';
import {
  createDraft,
  editDraft,
  getDocumentVersion,
  listAcceptancesOfPerson,
  listPlatformDocuments,
  publishVersion,
  type DocumentListView,
  type DocumentVersionView,
  type PublishPreview,
} from '../services/documents/administration.ts';
import { requireContractShape, type DraftCreateInput, type DraftUpdateInput } from '../services/documents/rules.ts';
import { parseWithArguments, toJson, UsageError } from './args.ts';
import type { CliIo, Command } from './command.ts';

// `documents …`: a platform's terms, privacy notice and custom consents from a shell (issue 25).
// The same services as the admin API; a draft body is checked against the contract's own
// compiled schema (the CLI does not pass through the API's validation), and publications are
// audited with actor "cli".

const TEXT_OPTIONS = {
  kind: { type: 'string' },
  language: { type: 'string' },
  title: { type: 'string' },
  'markdown-file': { type: 'string' },
  url: { type: 'string' },
  sha256: { type: 'string' },
  material: { type: 'string' },
  'effective-at': { type: 'string' },
} as const;

export const DOCUMENTS_HELP = `Documents of a platform (terms, privacy notice, custom consents; audited with actor "cli"):
  documents list <KEY>         documents, versions, and how many active users accepted each
  documents show <KEY> <DOCUMENT_KEY> <VERSION>
  documents draft <KEY> <DOCUMENT_KEY> --kind terms|privacy|custom --title TITLE
                   [--markdown-file PATH] [--url URL --sha256 HEX] [--language TAG]
                   [--material true|false] [--effective-at ISO_DATE]
                               a new draft (the next version), its text from a Markdown file or
                               an https URL with its digest; --language defaults to en
  documents edit <KEY> <DOCUMENT_KEY> <VERSION> [--title TITLE] [--markdown-file PATH]
                   [--url URL --sha256 HEX] [--language TAG] [--material true|false]
                   [--effective-at ISO_DATE|""]
                               change a draft; the text given replaces that language's
  documents publish <KEY> <DOCUMENT_KEY> <VERSION> [--dry-run] [--enforce-after ISO_DATE]
                               a material version (or a document's first) of terms or privacy
                               raises requirementVersion: everyone accepts it at next sign-in
                               (with --enforce-after: from that date; GRACE until then)
  documents acceptances <KEY> --sub SUB
                               one person's record for the platform's documents
`;

export function parseDocumentsCommand(action: string | undefined, args: string[], io: CliIo): Command | null {
  switch (action) {
    case undefined:
    case '--help':
    case '-h':
      return null;
    case 'list': {
      const { values, positionals } = parseWithArguments(args, {}, 'documents list', ['the platform KEY']);
      if (values.help) return null;
      return async (db, _io, json) => {
        const list = await listPlatformDocuments(db, positionals[0]!);
        io.stdout(json ? toJson(list) : formatDocumentList(list));
      };
    }
    case 'show': {
      const { values, positionals } = parseWithArguments(args, {}, 'documents show', ['the platform KEY', 'the DOCUMENT_KEY', 'the VERSION']);
      if (values.help) return null;
      const [key, documentKey] = positionals as [string, string];
      const version = versionNumber(positionals[2]!);
      return async (db, _io, json) => {
        const stored = await getDocumentVersion(db, key, documentKey, version);
        io.stdout(json ? toJson(stored) : formatVersion(stored));
      };
    }
    case 'draft': {
      const { values, positionals } = parseWithArguments(args, TEXT_OPTIONS, 'documents draft', ['the platform KEY', 'the DOCUMENT_KEY']);
      if (values.help) return null;
      const [key, documentKey] = positionals as [string, string];
      if (values.kind === undefined) throw new UsageError('documents draft needs --kind terms|privacy|custom');
      if (values.title === undefined) throw new UsageError('documents draft needs --title TITLE');
      return async (db, _io, json) => {
        const language = values.language ?? 'en';
        const input = {
          kind: values.kind,
          material: values.material === undefined ? true : booleanValue('--material', values.material),
          ...(values['effective-at'] !== undefined ? { effectiveAt: values['effective-at'] } : {}),
          defaultLanguage: language,
          texts: { [language]: await textOf(values, values.title!) },
        };
        requireContractShape('create', input);
        const draft = await createDraft(db, key, documentKey, input as DraftCreateInput);
        io.stdout(json ? toJson(draft) : formatVersion(draft));
      };
    }
    case 'edit': {
      const { values, positionals } = parseWithArguments(args, TEXT_OPTIONS, 'documents edit', ['the platform KEY', 'the DOCUMENT_KEY', 'the VERSION']);
      if (values.help) return null;
      const [key, documentKey] = positionals as [string, string];
      const version = versionNumber(positionals[2]!);
      if (values.kind !== undefined) throw new UsageError('a document keeps its kind: documents edit takes no --kind');
      return async (db, _io, json) => {
        const current = await getDocumentVersion(db, key, documentKey, version);
        const patch: Record<string, unknown> = {};
        if (values.material !== undefined) patch.material = booleanValue('--material', values.material);
        if (values['effective-at'] !== undefined) patch.effectiveAt = values['effective-at'] === '' ? null : values['effective-at'];
        const language = values.language ?? current.defaultLanguage;
        if (values.title !== undefined || values['markdown-file'] !== undefined || values.url !== undefined) {
          const title = values.title ?? current.texts[language]?.title;
          if (title === undefined) throw new UsageError(`the draft has no text in ${language} yet: give --title`);
          const { sha256: _digest, ...kept } = current.texts[language] ?? { title };
          const text = values['markdown-file'] !== undefined || values.url !== undefined ? await textOf(values, title) : { ...kept, title };
          patch.texts = { ...Object.fromEntries(Object.entries(current.texts).map(([tag, stored]) => [tag, inputOf(stored)])), [language]: text };
        }
        if (Object.keys(patch).length === 0) throw new UsageError('documents edit needs at least one option to change');
        requireContractShape('update', patch);
        const draft = await editDraft(db, key, documentKey, version, patch as DraftUpdateInput);
        io.stdout(json ? toJson(draft) : formatVersion(draft));
      };
    }
    case 'publish': {
      const { values, positionals } = parseWithArguments(args, { 'dry-run': { type: 'boolean' }, 'enforce-after': { type: 'string' } }, 'documents publish', ['the platform KEY', 'the DOCUMENT_KEY', 'the VERSION']);
      if (values.help) return null;
      const [key, documentKey] = positionals as [string, string];
      const version = versionNumber(positionals[2]!);
      const dryRun = values['dry-run'] === true;
      return async (db, _io, json) => {
        const result = await publishVersion(db, key, documentKey, version, CLI_ACTOR, { dryRun, enforceAfter: enforcementOf(values['enforce-after'], '--enforce-after') });
        if (result.applied) io.stdout(json ? toJson(result.version) : formatVersion(result.version));
        else io.stdout(json ? toJson(result.preview) : formatPreview(result.preview));
      };
    }
    case 'acceptances': {
      const { values, positionals } = parseWithArguments(args, { sub: { type: 'string' } }, 'documents acceptances', ['the platform KEY']);
      if (values.help) return null;
      if (values.sub === undefined) throw new UsageError('documents acceptances needs --sub SUB');
      return async (db, _io, json) => {
        const record = await listAcceptancesOfPerson(db, positionals[0]!, values.sub!);
        if (json) io.stdout(toJson(record));
        else io.stdout(record.records.length === 0 ? 'No acceptance recorded.\n' : `${record.records.map((row) => `${row.recordedAt}  ${row.action.padEnd(8)} ${row.documentKey} v${row.version} (${row.language}) sha256 ${row.sha256}${row.recordedVia === 'platform' ? `  recorded by platform ${row.recordedByPlatformKey ?? '?'}` : ''}`).join('\n')}\n`);
      };
    }
    default:
      throw new UsageError(`unknown documents command "${action}" (list, show, draft, edit, publish, acceptances)`);
  }
}

/** A Markdown text read from a file, or a linked one with its digest. */
async function textOf(values: { 'markdown-file'?: string; url?: string; sha256?: string }, title: string): Promise<Record<string, string>> {
  if (values['markdown-file'] !== undefined) {
    if (values.url !== undefined) throw new UsageError('give --markdown-file or --url, not both');
    return { title, markdown: await readFile(values['markdown-file'], 'utf8') };
  }
  if (values.url === undefined || values.sha256 === undefined) throw new UsageError('give --markdown-file PATH, or --url URL with --sha256 HEX');
  return { title, url: values.url, sha256: values.sha256 };
}

/** A stored text as a draft body takes it back (a Markdown text's digest is the gateway's own). */
function inputOf(text: DocumentVersionView['texts'][string]): Record<string, string> {
  return text.markdown !== undefined ? { title: text.title, markdown: text.markdown } : { title: text.title, url: text.url!, sha256: text.sha256 };
}

function versionNumber(value: string): number {
  if (!/^[1-9]\d{0,6}$/.test(value)) throw new UsageError('VERSION must be a whole number from 1');
  return Number(value);
}

function booleanValue(name: string, value: string): boolean {
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new UsageError(`${name} must be true or false`);
}

function formatDocumentList(list: DocumentListView): string {
  const lines = [`${list.platformKey}: requirementVersion ${list.requirementVersion}, ${list.activeUsers} active users`];
  if (list.items.length === 0) lines.push('No documents.');
  for (const document of list.items) {
    lines.push(`${document.documentKey} (${document.kind}${document.withdrawable ? ', withdrawable' : ''}), current version ${document.currentVersion ?? 'none'}`);
    for (const version of document.versions) {
      const state = version.status === 'draft' ? 'draft' : `published ${version.publishedAt}, ${version.acceptedBy} of ${list.activeUsers} accepted`;
      lines.push(`  v${version.version} ${version.material ? 'material' : 'non-material'}  ${state}  "${version.title}"`);
    }
  }
  return `${lines.join('\n')}\n`;
}

function formatVersion(version: DocumentVersionView): string {
  const lines = [
    `${version.platformKey} ${version.documentKey} (${version.kind}) version ${version.version}: ${version.status}${version.material ? ', material' : ', non-material'}`,
    `effective ${version.effectiveAt ?? 'at publication'}${version.publishedAt ? `, published ${version.publishedAt}` : ''}; default language ${version.defaultLanguage}`,
  ];
  for (const [language, text] of Object.entries(version.texts)) lines.push(`  ${language}: "${text.title}" ${text.url ?? `${text.markdown?.length ?? 0} characters of Markdown`} sha256 ${text.sha256}`);
  return `${lines.join('\n')}\n`;
}

function formatPreview(preview: PublishPreview): string {
  return `Dry run (nothing written): publishing ${preview.version.documentKey} version ${preview.version.version} ${preview.blocking
    ? `asks ${preview.mustAccept} of ${preview.activeUsers} active users to accept it before their next sign-in; requirementVersion would be ${preview.requirementVersion}, reopening ${preview.reopenedUsers} completed onboardings`
    : 'asks no one to accept it again (not material); people who accepted an earlier version see it as updated'}.\n${preview.enforceAfter ? `Enforced from ${preview.enforceAfter}: until then ${preview.graceUsers} users sign in as before (GRACE).\n` : ''}`;
}
