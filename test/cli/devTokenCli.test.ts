import { describe, expect, it } from 'vitest';
import { runCli, HELP } from '../../src/cli/run.ts';
import { freePort } from '../../src/db/embedded.ts';

// `npm run gateway -- dev token` without a running dev stack, and its usage errors. The token
// itself (issued by the dev provider, accepted by the gateway) is checked against a real
// `npm start` in test/e2e/devStackStartStop.test.ts.

async function cli(argv: string[], env: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { stdout: (text) => out.push(text), stderr: (text) => err.push(text), env: { NODE_ENV: 'development', ...env } });
  return { code, stdout: out.join(''), stderr: err.join('') };
}

describe('gateway dev token', () => {
  it('is in the help, and has its own', async () => {
    expect(HELP).toContain('dev token --user USERNAME');
    const help = await cli(['dev', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('npm run --silent gateway -- dev token --user admin');
  });

  it('says when no dev stack answers (exit 1), naming npm start and DEV_IDP_PORT', async () => {
    const result = await cli(['dev', 'token', '--user', 'admin'], { DEV_IDP_PORT: String(await freePort()) });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('is `npm start` running (with the same DEV_IDP_PORT)?');
    expect(result.stdout).toBe('');
  });

  it('usage errors exit 2', async () => {
    expect((await cli(['dev', 'token'])).code).toBe(2);
    expect((await cli(['dev', 'token', '--user', 'someone'])).stderr).toContain('give --password');
    expect((await cli(['dev', 'mint'])).code).toBe(2);
    expect((await cli(['dev', 'token', '--user', 'admin', '--nope'])).code).toBe(2);
  });
});
