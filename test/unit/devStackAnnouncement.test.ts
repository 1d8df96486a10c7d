import { describe, it, expect } from 'vitest';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import pinoPretty from 'pino-pretty';
import { createLogger } from '../../src/logger.ts';
import { ADMIN_TOKEN_COMMAND, announceReady, READY_MESSAGE, type ReadyParts } from '../../src/devstack/announcement.ts';

// `npm start`'s "what next" block: at a terminal it must read as lines (addresses, users, the
// admin token command), and in JSON it must stay one parseable line per event. It used to be
// one message with \n inside, followed at the terminal by the same facts again as fields.

const PARTS: ReadyParts = {
  bffUrl: 'http://localhost:3001',
  accountCenterUrl: 'http://localhost:3000',
  gatewayUrl: 'http://localhost:8080',
  devIdpUrl: 'http://127.0.0.1:9090',
  platforms: [{ platformKey: 'DEMO_PLATFORM', clientId: 'pc_dev_demo_platform', clientSecret: 'pcs_dev-only-demo' }],
  users: 'alice / alice-password, admin / admin-password',
  secondFactors: [{ username: 'alice', uri: 'otpauth://totp/Dev%20IdP%3Aalice?secret=ABC' }],
};

function memory(): { stream: Writable; text(): string } {
  const chunks: string[] = [];
  return {
    stream: new Writable({ write(chunk, _encoding, done) { chunks.push(String(chunk)); done(); } }),
    text: () => chunks.join(''),
  };
}

describe('the dev stack announcement', () => {
  it('at a terminal (pino-pretty): the block as real lines, each address and command on its own line, no repeated fields', () => {
    const out = memory();
    // The same pino-pretty options as createLogger's terminal output, written synchronously here.
    const log = pino({ level: 'info' }, pinoPretty({ destination: out.stream, colorize: false, sync: true, translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname,service' }));
    announceReady(log, PARTS, { pretty: true });
    const lines = out.text().split('\n').map((line) => line.trimEnd());
    expect(lines[0]).toMatch(new RegExp(`INFO: ${READY_MESSAGE.replace(/[()]/g, '\\$&')}:$`));
    expect(lines).toContain('  example BFF      http://localhost:3001/');
    expect(lines).toContain('  account center   http://localhost:3000/');
    expect(lines).toContain('  users            alice / alice-password, admin / admin-password');
    expect(lines).toContain(`  admin token      ${ADMIN_TOKEN_COMMAND}`);
    expect(out.text()).not.toContain('\\n');
    // Nothing after the block: the addresses are not printed a second time as fields.
    expect(lines.filter(Boolean).at(-1)).toBe(`  admin token      ${ADMIN_TOKEN_COMMAND}`);
  });

  it('the admin token command is quiet (--silent), so its output is the token alone', () => {
    expect(ADMIN_TOKEN_COMMAND).toBe('npm run --silent gateway -- dev token --user admin');
  });

  it('elsewhere (JSON lines): one line, a message without line breaks, the block as an array', () => {
    const lines: string[] = [];
    const log = createLogger('info', { write: (line: string) => void lines.push(line) });
    announceReady(log, PARTS, { pretty: false });
    expect(lines).toHaveLength(1);
    const entry = JSON.parse(lines[0]!) as { msg: string; next: string[]; demo: string; accountCenter: string };
    expect(entry.msg).toBe(READY_MESSAGE);
    expect(entry.msg).not.toContain('\n');
    expect(entry.next).toContain(`admin token      ${ADMIN_TOKEN_COMMAND}`);
    expect(entry.next).toContain('DEMO_PLATFORM  client id pc_dev_demo_platform  secret pcs_dev-only-demo');
    expect(entry.demo).toBe('http://localhost:3001');
  });
});
