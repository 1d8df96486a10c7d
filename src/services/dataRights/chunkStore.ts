import { Readable } from 'node:stream';
import type { Db } from '../../db/knex.ts';
import { insertChunk, readChunk } from './exportRepository.ts';

/**
 * Export documents live in PostgreSQL, like the avatars of the default store: every gateway
 * instance serves every download with no shared disk, and the purge deletes them with their
 * rows. A document is kept as ordered chunks of at most CHUNK_BYTES, so writing one holds at
 * most one chunk in memory and reading one streams chunk by chunk.
 */
export const CHUNK_BYTES = 256 * 1024;

/** Where a job writes a document: text in, chunks of CHUNK_BYTES out, one INSERT each. */
export interface DocumentSink {
  write(text: string): Promise<void>;
  /** Writes what is left; the document's size in bytes. */
  close(): Promise<number>;
}

export function postgresSink(db: Db, exportId: string): DocumentSink {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let seq = 0;
  let total = 0;
  const flush = async (all: boolean) => {
    while (pendingBytes >= CHUNK_BYTES || (all && pendingBytes > 0)) {
      const joined = Buffer.concat(pending, pendingBytes);
      const chunk = joined.subarray(0, Math.min(CHUNK_BYTES, joined.length));
      const rest = joined.subarray(chunk.length);
      await insertChunk(db, exportId, seq++, chunk);
      total += chunk.length;
      pending = rest.length > 0 ? [Buffer.from(rest)] : [];
      pendingBytes = rest.length;
    }
  };
  return {
    async write(text) {
      const bytes = Buffer.from(text, 'utf8');
      pending.push(bytes);
      pendingBytes += bytes.length;
      if (pendingBytes >= CHUNK_BYTES) await flush(false);
    },
    async close() {
      await flush(true);
      return total;
    },
  };
}

/** A document as a stream, one chunk read at a time (a read only when the response wants more). */
export function postgresSource(db: Db, exportId: string): Readable {
  let seq = 0;
  return new Readable({
    highWaterMark: 1,
    objectMode: false,
    read() {
      readChunk(db, exportId, seq++).then(
        (chunk) => this.push(chunk ?? null),
        (error: unknown) => this.destroy(error as Error),
      );
    },
  });
}
