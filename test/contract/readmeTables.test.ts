import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadConfig, loadDatabaseToolConfig, loadKeyRingSpec } from '../../src/config/index.ts';
import { HELP } from '../../src/cli/run.ts';
import { DEV_ENCRYPTION_KEYS } from '../../src/security/crypto.ts';
import { generateSigningKeySpec } from '../../src/security/signingKeys.ts';

// The configuration and CLI tables (docs/configuration.md, docs/cli.md; once in the README) are
// what operators read instead of the code. Both drifted unnoticed (GATEWAY_SESSION_IDLE_SECONDS,
// `keys status`), so these tests compare them with what the code actually reads and parses.

const doc = (path: string) => '\n' + readFileSync(fileURLToPath(new URL(`../../${path}`, import.meta.url)), 'utf8');

/** The rows of the Markdown table that follows `heading` in the file at `path` (cells, header and separator left out). */
function tableAfter(path: string, heading: string): string[][] {
  const text = doc(path);
  const start = text.indexOf(`\n${heading}\n`);
  expect(start, `${path} section ${heading}`).toBeGreaterThanOrEqual(0);
  const lines = text.slice(start).split('\n');
  const first = lines.findIndex((line) => line.startsWith('|'));
  const rows: string[][] = [];
  for (const line of lines.slice(first + 2)) {
    if (!line.startsWith('|')) break;
    // Cells split on unescaped pipes (`\|` separates alternatives inside a cell).
    rows.push(line.slice(1, -1).split(/(?<!\\)\|/).map((cell) => cell.trim()));
  }
  return rows;
}

/** Every environment variable name the config module reads, found by reading through a recording env. */
function variablesTheConfigReads(): Set<string> {
  const read = new Set<string>();
  const recording = (values: Record<string, string>) => new Proxy(values, {
    get(target, name) {
      if (typeof name === 'string') read.add(name);
      return typeof name === 'string' ? target[name] : undefined;
    },
  });
  const attempt = (load: () => unknown) => {
    try { load(); } catch { /* a refused environment still shows which names were read */ }
  };
  // Some names are read only in some environments: production, an S3 bucket, a metrics port.
  const environments: Record<string, string>[] = [
    {},
    { NODE_ENV: 'production', DATABASE_URL: 'postgres://u:p@db/x', ENCRYPTION_KEYS: 'k9:' + Buffer.alloc(32, 7).toString('base64'), GATEWAY_SIGNING_KEYS: generateSigningKeySpec('s1'), OIDC_ISSUER: 'https://idp.example.com', OIDC_CLIENT_ID: 'c', OIDC_CLIENT_SECRET: 's', PUBLIC_BASE_URL: 'https://gw.example.com', ACCOUNT_CENTER_URL: 'https://ac.example.com' },
    { AVATAR_S3_BUCKET: 'avatars', METRICS_PORT: '9100', ENCRYPTION_KEYS: DEV_ENCRYPTION_KEYS, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' },
  ];
  for (const env of environments) {
    attempt(() => loadConfig(recording({ ...env })));
    attempt(() => loadDatabaseToolConfig(recording({ ...env })));
    attempt(() => loadKeyRingSpec(recording({ ...env })));
  }
  return read;
}

describe('docs/configuration.md variables table', () => {
  const rows = tableAfter('docs/configuration.md', '# Configuration');
  const names = (cell: string) => [...cell.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((match) => match[1]!);
  const documented = new Set(rows.flatMap((row) => names(row[0]!)));
  const mentioned = new Set(rows.flatMap((row) => row.flatMap(names)));
  // Read outside src/config: the embedded server's port is read where the server is opened (src/db/open.ts).
  const readElsewhere = ['EMBEDDED_POSTGRES_PORT'];

  it('names every variable the config module reads', () => {
    const read = variablesTheConfigReads();
    expect(read.size).toBeGreaterThan(40);
    const missing = [...read].filter((name) => !mentioned.has(name)).sort();
    expect(missing, 'variables the config reads that the docs/configuration.md table does not name').toEqual([]);
  });

  it('has a row only for variables the code reads', () => {
    const read = variablesTheConfigReads();
    const unknown = [...documented].filter((name) => !read.has(name) && !readElsewhere.includes(name)).sort();
    expect(unknown, 'docs/configuration.md rows for variables nothing reads').toEqual([]);
  });
});

/** `group action` → the options its usage lines name, from the CLI's own help text. */
function commandsOfHelp(): Map<string, Set<string>> {
  const commands = new Map<string, Set<string>>();
  let current: Set<string> | null = null;
  // The usages end where the options and notes begin (the notes start lines with command names too).
  for (const line of HELP.slice(0, HELP.indexOf('\nOptions:')).split('\n')) {
    const command = /^ {2}(platforms|branding|fields|documents|grace|events|audit|keys|dev|support) ([a-z][a-z-]*)/.exec(line);
    if (command) {
      current = new Set();
      commands.set(`${command[1]} ${command[2]}`, current);
    } else if (!/^ {3,}\[/.test(line)) {
      // Only the bracketed continuation lines of a usage belong to it; descriptions do not.
      if (!/^ {3,}/.test(line)) current = null;
      continue;
    }
    const usage = command ? line.split(/ {3,}(?=[a-z])/)[0]! : line;
    for (const option of usage.matchAll(/--[a-z][a-z-]*/g)) current?.add(option[0]);
  }
  return commands;
}

describe('docs/cli.md CLI table', () => {
  const rows = tableAfter('docs/cli.md', '# Operator CLI');
  const documented = new Map<string, Set<string>>();
  for (const [cell] of rows) {
    // "`platforms activate KEY` / `platforms deactivate KEY`" documents two commands in one row.
    for (const usage of [...cell!.matchAll(/`([^`]+)`/g)].map((match) => match[1]!)) {
      const [group, action] = usage.split(' ');
      documented.set(`${group} ${action}`, new Set([...usage.matchAll(/--[a-z][a-z-]*/g)].map((match) => match[0])));
    }
  }
  const help = commandsOfHelp();

  it('lists the same commands as the CLI', () => {
    expect(help.size).toBeGreaterThan(10);
    expect([...documented.keys()].sort()).toEqual([...help.keys()].sort());
  });

  it('names each command\'s options', () => {
    const missing: string[] = [];
    for (const [command, options] of help) {
      for (const option of options) if (!documented.get(command)?.has(option)) missing.push(`${command} ${option}`);
    }
    expect(missing, 'options in the CLI help that the docs/cli.md row leaves out').toEqual([]);
  });
});
