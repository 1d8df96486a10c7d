import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import request from 'supertest';
import { parse } from 'yaml';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const REDOCLY = path.join(ROOT, 'node_modules/.bin/redocly');

interface LintReport {
  totals: { errors: number; warnings: number; ignored: number };
  problems: Array<{ ruleId: string; severity: string; message: string; location?: Array<{ pointer?: string }> }>;
}

describe('redocly lint', () => {
  it('reports zero errors and zero warnings for openapi/gateway.yaml', async () => {
    let stdout: string;
    try {
      ({ stdout } = await run(REDOCLY, ['lint', 'openapi/gateway.yaml', '--format=json'], {
        cwd: ROOT,
        timeout: 120_000,
        maxBuffer: 32 * 1024 * 1024,
        env: {
          ...process.env,
          // The same Node that runs the tests runs the CLI (its shebang is `env node`).
          PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}`,
          REDOCLY_TELEMETRY: 'off',
          REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
        },
      }));
    } catch (error) {
      // redocly exits non-zero when it finds errors; its JSON report is still on stdout.
      const failed = error as { stdout?: string; stderr?: string; message: string };
      if (!failed.stdout) throw new Error(`redocly lint did not run: ${failed.message}\n${failed.stderr ?? ''}`);
      stdout = failed.stdout;
    }
    const report = JSON.parse(stdout) as LintReport;
    const summary = report.problems.map((problem) => `${problem.severity} ${problem.ruleId}: ${problem.message} (${problem.location?.[0]?.pointer ?? ''})`);
    expect(summary).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  }, 130_000);
});

describe('/openapi.json', () => {
  let database: TestDatabase;
  let gateway: TestApp;

  beforeAll(async () => {
    database = await createTestDatabase();
    gateway = await createTestApp({ db: database.db });
  });
  afterAll(async () => {
    await database.drop();
  });

  it('serves the contract: the parsed YAML but for its server (this instance) and its version (this build), OpenAPI 3.1.x', async () => {
    const res = await request(gateway.app).get('/openapi.json').expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const fromDisk = parse(readFileSync(path.join(ROOT, 'openapi/gateway.yaml'), 'utf8')) as { servers: unknown; info: Record<string, unknown> };
    const packageVersion = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
    expect(res.body).toEqual({ ...fromDisk, servers: [{ url: 'http://gateway.test', description: 'This gateway' }], info: { ...fromDisk.info, version: packageVersion } });
    expect(res.body.openapi).toMatch(/^3\.1\.\d+$/);
    // "Try it out" calls this instance; the version is the one /health/live reports.
    const live = await request(gateway.app).get('/health/live').expect(200);
    expect(res.body.info.version).toBe(live.body.version);
    expect(fromDisk.info.version, 'the YAML states the package version').toBe(packageVersion);
  });

  it('is not altered by the router (which dereferences its own copy)', async () => {
    // openapi-backend resolves $refs in place; serving that copy would inline every schema.
    await request(gateway.app).get('/health/live').expect(200);
    const res = await request(gateway.app).get('/openapi.json').expect(200);
    expect(JSON.stringify(res.body)).toContain('"$ref":"#/components/schemas/Problem"');
  });
});
