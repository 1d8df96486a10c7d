// `node scripts/memory/dataExport.ts`: the memory of "download my data" (issue 26) for a person
// with 1,000 and with 100,000 audit events (and 100 / 10,000 sessions). An embedded PostgreSQL
// in a temporary folder; each size is exported by a fresh child process, which writes the
// document exactly as the export job does (writeDataExportDocument into the PostgreSQL chunk
// store) and then reads it back as the download does (postgresSource), sampling RSS and the
// V8 heap every few milliseconds. Flat memory means the peaks of the two sizes are about equal
// while the documents differ a hundredfold. Figures: docs/benchmarks.md, "Data export memory".
import { spawn } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { startEmbeddedDatabase } from '../../src/db/embedded.ts';
import { createDb, migrateLatest, type Db } from '../../src/db/knex.ts';
import { postgresSink, postgresSource } from '../../src/services/dataRights/chunkStore.ts';
import { writeDataExportDocument } from '../../src/services/dataRights/document.ts';

const SIZES = [
  { auditEvents: 1_000, sessions: 100 },
  { auditEvents: 100_000, sessions: 10_000 },
];
const MB = (bytes: number) => (bytes / 1048576).toFixed(1);
/** The flags of the production image (Dockerfile: NODE_OPTIONS=--max-semi-space-size=4, MALLOC_ARENA_MAX=2). */
const FLAGS = ['--max-semi-space-size=4'];

if (process.argv[2] === '--child') await child(process.argv[3]!, process.argv[4]!, process.argv[5] === 'live');
else await parent();

async function parent(): Promise<void> {
  const tempDir = await mkdtemp(path.join(os.tmpdir(), 'gateway-export-memory-'));
  await chmod(tempDir, 0o755); // PostgreSQL runs as `postgres` when we are root
  const embedded = await startEmbeddedDatabase({ dataDir: path.join(tempDir, 'pg'), port: 0, persistent: false });
  try {
    const admin = createDb(embedded.adminUrl, { poolMax: 1 });
    await admin.raw('CREATE DATABASE export_memory');
    await admin.destroy();
    const url = embedded.urlFor('export_memory');
    const db = createDb(url, { poolMax: 2, statementTimeoutMs: 0 }); // seeding 100,000 rows may take a while
    await migrateLatest(db);
    const people = [];
    for (const size of SIZES) people.push({ ...size, userId: await seedPerson(db, size.auditEvents, size.sessions) });
    for (const mode of ['plain', 'live'] as const) {
      console.log(mode === 'plain'
        ? '\nAs the process runs (no forced GC): peaks of RSS and V8 heapUsed'
        : '\nWith a full GC every 50 ms: "live heap" is the most the export kept alive at once');
      console.log('audit events  sessions  document MB  chunks | write: peak RSS  peak heap  live heap | download: peak RSS  peak heap  live heap | baseline RSS  heap (MB)');
      for (const person of people) {
        const result = JSON.parse(await runChild(url, person.userId, mode)) as Record<string, number>;
        const live = (value: number) => (mode === 'live' ? MB(value) : '-');
        console.log(
          [
            String(person.auditEvents).padStart(12),
            String(person.sessions).padStart(10),
            MB(result.bytes!).padStart(13),
            String(result.chunks).padStart(8),
            ' |',
            MB(result.writeRss!).padStart(16),
            MB(result.writeHeap!).padStart(11),
            live(result.writeLive!).padStart(11),
            ' |',
            MB(result.readRss!).padStart(19),
            MB(result.readHeap!).padStart(11),
            live(result.readLive!).padStart(11),
            ' |',
            MB(result.baseRss!).padStart(14),
            MB(result.baseHeap!).padStart(6),
          ].join(''),
        );
      }
    }
    await db.destroy();
  } finally {
    await embedded.stop();
    await rm(tempDir, { recursive: true, force: true });
  }
}

/** A person with the given history: sessions (with a platform credential each), audit events about them, a membership and values. */
async function seedPerson(db: Db, auditEvents: number, sessions: number): Promise<string> {
  const { rows: [user] } = await db.raw(`INSERT INTO users (sub, email, display_name) VALUES ('memory-' || gen_random_uuid(), 'memory@example.test', 'Memory') RETURNING id`);
  const userId = (user as { id: string }).id;
  const { rows: [platform] } = await db.raw(`INSERT INTO platforms (platform_key, display_name) VALUES ('MEMORY_' || upper(substr(md5(random()::text), 1, 8)), 'Memory') RETURNING id, platform_key`);
  const { id: platformId, platform_key: platformKey } = platform as { id: string; platform_key: string };
  await db.raw(`INSERT INTO profiles (user_id, first_name, last_name) VALUES (?, 'Mem', 'Ory')`, [userId]);
  await db.raw(`INSERT INTO platform_memberships (user_id, platform_id, completed_requirement_version) VALUES (?, ?, 1)`, [userId, platformId]);
  await db.raw(`INSERT INTO onboarding_values (user_id, platform_id, field_key, value) VALUES (?, ?, 'company', '"Acme"')`, [userId, platformId]);
  await db.raw(
    `INSERT INTO gateway_sessions (user_id, token_digest, expires_at, ended_at, end_reason, user_agent, ip_prefix)
     SELECT ?, decode(md5(g::text || ?) || md5(?::text || g), 'hex'), now() + interval '1 day', now(), 'sign_out',
            'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36', '198.51.100.0/24'
       FROM generate_series(1, ?) g`,
    [userId, userId, userId, sessions],
  );
  await db.raw(
    `INSERT INTO platform_credentials (session_id, platform_id, token_digest)
     SELECT id, ?, decode(md5(id::text) || md5(id::text || 'c'), 'hex') FROM gateway_sessions WHERE user_id = ?`,
    [platformId, userId],
  );
  await db.raw(
    `INSERT INTO audit_events (action, platform_key, actor_type, actor_user_id, actor_sub, changed_fields, request_id, occurred_at)
     SELECT 'platform.update', ?, 'user', ?, 'memory-sub', ARRAY['displayName', 'metadata'], 'req-' || g, now() - make_interval(secs => g)
       FROM generate_series(1, ?) g`,
    [platformKey, userId, auditEvents],
  );
  await db.raw('ANALYZE');
  return userId;
}

function runChild(url: string, userId: string, mode: 'plain' | 'live'): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', ...FLAGS, fileURLToPath(import.meta.url), '--child', url, userId, mode], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, MALLOC_ARENA_MAX: '2' } });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`child exited ${code}`))));
  });
}

/** The measured part, alone in its process: write the document as the job does, read it as the download does. */
async function child(url: string, userId: string, live: boolean): Promise<void> {
  const db = createDb(url, { poolMax: 4 });
  await db.raw('SELECT 1');
  const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))![1]) * 1024;
  const base = { rss: rss(), heap: process.memoryUsage().heapUsed };
  const peaks = { rss: 0, heap: 0, live: 0 };
  const gc = (globalThis as { gc?: () => void }).gc!;
  let ticks = 0;
  const sample = () => {
    peaks.rss = Math.max(peaks.rss, rss());
    peaks.heap = Math.max(peaks.heap, process.memoryUsage().heapUsed);
    // Every 10th sample, what is still alive after a full collection: memory the export holds.
    if (live && ++ticks % 10 === 0) {
      gc();
      peaks.live = Math.max(peaks.live, process.memoryUsage().heapUsed);
    }
  };
  const timer = setInterval(sample, 5);
  const { rows: [exported] } = await db.raw(`INSERT INTO data_exports (user_id, expires_at) VALUES (?, now() + interval '1 hour') RETURNING id`, [userId]);
  const exportId = (exported as { id: string }).id;
  const bytes = await writeDataExportDocument(db, userId, postgresSink(db, exportId));
  sample();
  const write = { ...peaks };
  peaks.rss = 0;
  peaks.heap = 0;
  peaks.live = 0;
  let read = 0;
  await pipeline(postgresSource(db, exportId), new Writable({ write: (chunk: Buffer, _encoding, done) => { read += chunk.length; done(); } }));
  sample();
  clearInterval(timer);
  if (read !== bytes) throw new Error(`read ${read} bytes of ${bytes}`);
  const { rows: [count] } = await db.raw('SELECT count(*)::int AS n FROM data_export_chunks WHERE export_id = ?', [exportId]);
  await db.destroy();
  process.stdout.write(JSON.stringify({ bytes, chunks: (count as { n: number }).n, writeRss: write.rss, writeHeap: write.heap, writeLive: write.live, readRss: peaks.rss, readHeap: peaks.heap, readLive: peaks.live, baseRss: base.rss, baseHeap: base.heap }));
}
