// The export documents' PostgreSQL store (issue 26): what a job writes in pieces of any size
// comes back byte for byte, in chunks of at most CHUNK_BYTES, multi-byte characters split
// across chunk boundaries included.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { CHUNK_BYTES, postgresSink, postgresSource } from '../../src/services/dataRights/chunkStore.ts';

describe('data export chunk store', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });

  async function newExport(): Promise<string> {
    const { rows: [user] } = await database.db.raw(`INSERT INTO users (sub) VALUES ('chunks-' || gen_random_uuid()) RETURNING id`);
    const { rows: [row] } = await database.db.raw(`INSERT INTO data_exports (user_id, expires_at) VALUES (?, now() + interval '1 hour') RETURNING id`, [(user as { id: string }).id]);
    return (row as { id: string }).id;
  }

  async function readBack(exportId: string): Promise<Buffer> {
    const parts: Buffer[] = [];
    await pipeline(postgresSource(database.db, exportId), new Writable({ write: (chunk: Buffer, _encoding, done) => { parts.push(chunk); done(); } }));
    return Buffer.concat(parts);
  }

  it('keeps pieces of every size, small to several chunks long, and multi-byte text across boundaries', async () => {
    const exportId = await newExport();
    const sink = postgresSink(database.db, exportId);
    const pieces = ['{"a":', 'ü'.repeat(CHUNK_BYTES / 2 + 1), 'x'.repeat(3 * CHUNK_BYTES + 17), '€😀', ...Array.from({ length: 2000 }, (_, i) => `,"k${i}":${i}`), '}'];
    for (const piece of pieces) await sink.write(piece);
    const size = await sink.close();
    const expected = Buffer.from(pieces.join(''), 'utf8');
    expect(size).toBe(expected.length);
    const { rows } = await database.db.raw('SELECT seq, octet_length(bytes) AS length FROM data_export_chunks WHERE export_id = ? ORDER BY seq', [exportId]);
    expect(rows.map((row: { seq: number }) => row.seq)).toEqual(rows.map((_: unknown, i: number) => i));
    expect(rows.slice(0, -1).every((row: { length: number }) => row.length === CHUNK_BYTES)).toBe(true);
    expect(rows.at(-1).length).toBeGreaterThan(0);
    expect((await readBack(exportId)).equals(expected)).toBe(true);
  });

  it('an empty document is no chunk, and reads back empty', async () => {
    const exportId = await newExport();
    expect(await postgresSink(database.db, exportId).close()).toBe(0);
    expect((await readBack(exportId)).length).toBe(0);
  });
});
