import { describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';

const LOGGER = fileURLToPath(new URL('../../src/logger.ts', import.meta.url));

/**
 * Runs a script in a fresh Node process that logs through batchedDestination, then `end`. The
 * file is opened first and given as a descriptor, as production gives stdout's (1).
 */
async function logInChild(file: string, end: string): Promise<{ code: number | null }> {
  const script = `
    import { openSync } from 'node:fs';
    import { batchedDestination, createLogger } from ${JSON.stringify(LOGGER)};
    const logger = createLogger('info', batchedDestination(openSync(${JSON.stringify(file)}, 'w')));
    logger.info({ n: 1 }, 'first line');
    logger.info({ n: 2 }, 'second line');
    ${end}
  `;
  try {
    await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { timeout: 20_000 });
    return { code: 0 };
  } catch (error) {
    return { code: (error as { code?: number }).code ?? null };
  }
}

const messages = async (file: string) =>
  (await readFile(file, 'utf8').catch(() => '')).split('\n').filter(Boolean).map((line) => (JSON.parse(line) as { msg: string }).msg);

// Production's log lines are written in batches (src/logger.ts, issue 15): none may be lost on
// the ways a process ends, and none may wait for more than about a second.
describe('batched log lines (production stdout)', () => {
  it('waits for the batch, then writes within LOG_FLUSH_INTERVAL_MS', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'log-batch-'));
    try {
      const file = join(folder, 'out.log');
      const run = await logInChild(file, `
        const { readFileSync } = await import('node:fs');
        const before = readFileSync(${JSON.stringify(file)}, 'utf8');
        await new Promise((resolve) => setTimeout(resolve, 1500));
        const after = readFileSync(${JSON.stringify(file)}, 'utf8');
        if (before !== '' || !after.includes('second line')) process.exit(9);
        // Still running: a pending interval must not keep the process alive either.
      `);
      expect(run.code).toBe(0);
      expect(await messages(file)).toEqual(['first line', 'second line']);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it.each([
    ['the event loop empties', ''],
    ['process.exit()', 'process.exit(3);'],
    ['an uncaught exception', "setTimeout(() => { throw new Error('boom'); });"],
  ])('writes what is gathered when %s', async (_how, end) => {
    const folder = await mkdtemp(join(tmpdir(), 'log-batch-'));
    try {
      const file = join(folder, 'out.log');
      await logInChild(file, end);
      expect(await messages(file)).toEqual(['first line', 'second line']);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});
