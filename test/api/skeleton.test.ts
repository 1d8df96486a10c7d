import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request, { type Response } from 'supertest';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createApp } from '../../src/app.ts';
import { handlers } from '../../src/api/handlers.ts';
import { ApiError, ERROR_CATALOGUE, type ErrorCode } from '../../src/errors/catalogue.ts';

/**
 * The app skeleton: routing failures, validation, body parsing, authentication
 * order, problem+json and HTML error pages, request ids, security headers, CORS,
 * docs. Everything through the real app with response validation on.
 */

const contract = parse(readFileSync(fileURLToPath(new URL('../../openapi/gateway.yaml', import.meta.url)), 'utf8')) as {
  components: { headers: Record<string, { schema: { const?: string } }> };
};

// Problem bodies are checked by status only in the dispatcher; their shape is pinned here,
// against the contract's Problem schema, independently of the app's own validator.
const ajv = new Ajv2020.default({ strict: false, allErrors: true, validateSchema: false });
addFormats.default(ajv);
ajv.addSchema({ $id: 'contract', components: (contract as { components: unknown }).components }, 'contract');
const validateProblemSchema = ajv.getSchema('contract#/components/schemas/Problem')!;

const PROBLEM_KEYS = ['type', 'title', 'status', 'code', 'requestId', 'detail', 'errors'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

/** Asserts an RFC 9457 problem of the catalogue, sent the way every problem must be. */
function expectProblem(res: Response, status: number, code: ErrorCode): Record<string, unknown> {
  expect({ status: res.status, code: res.body?.code }).toEqual({ status, code });
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(res.headers['cache-control']).toBe('no-store');
  const body = JSON.parse(res.text) as Record<string, unknown>;
  expect(Object.keys(body).filter((key) => !PROBLEM_KEYS.includes(key))).toEqual([]);
  expect(validateProblemSchema(body), JSON.stringify(validateProblemSchema.errors)).toBe(true);
  expect(body.status).toBe(status);
  expect(body.title).toBe(ERROR_CATALOGUE[code].title);
  expect(body.type).toEqual(expect.stringMatching(/^https:\/\//));
  expect(body.requestId).toBe(res.headers['x-request-id']);
  expect(body.requestId).toEqual(expect.any(String));
  return body;
}

/** A Content-Security-Policy header as directive → sources. */
function parsePolicy(header: string): Record<string, string[]> {
  return Object.fromEntries(
    header
      .split(';')
      .map((directive) => directive.trim().split(/\s+/))
      .filter((words) => words[0])
      .map(([name, ...sources]) => [name!, sources]),
  );
}

function pointers(body: Record<string, unknown>): string[] {
  const errors = body.errors as Array<{ pointer: string; message: string }> | undefined;
  for (const error of errors ?? []) expect(error.message).toEqual(expect.stringMatching(/\S/));
  return [...new Set((errors ?? []).map((error) => error.pointer))].sort();
}

describe('app skeleton', () => {
  let database: TestDatabase;
  let gateway: TestApp;

  beforeAll(async () => {
    database = await createTestDatabase();
    gateway = await createTestApp({ db: database.db });
  });
  afterAll(async () => {
    await database.drop();
  });

  describe('routing', () => {
    it.each(['/v1/nothing-here', '/nothing-here', '/v1/platforms/DEMO/unknown'])('unknown path %s gives 404 NOT_FOUND', async (path) => {
      const res = await request(gateway.app).get(path);
      expectProblem(res, 404, 'NOT_FOUND');
    });

    it('a wrong method on a known path gives 405 METHOD_NOT_ALLOWED with an Allow header', async () => {
      const res = await request(gateway.app).delete('/v1/platforms');
      expectProblem(res, 405, 'METHOD_NOT_ALLOWED');
      // RFC 9110 §15.5.6: a 405 must list the methods the resource supports.
      expect(res.headers.allow).toBe('GET, HEAD, POST');
      // The login flow's GETs create or spend a login: HEAD is not among their methods.
      const start = await request(gateway.app).delete('/v1/auth/start');
      expectProblem(start, 405, 'METHOD_NOT_ALLOWED');
      expect(start.headers.allow).toBe('GET');
      const post = await request(gateway.app).get('/v1/auth/exchange');
      expectProblem(post, 405, 'METHOD_NOT_ALLOWED');
      expect(post.headers.allow).toBe('POST');
    });

    it('405 on a templated path lists every method the contract publishes there', async () => {
      const res = await request(gateway.app).put('/v1/platforms/DEMO');
      expectProblem(res, 405, 'METHOD_NOT_ALLOWED');
      expect(String(res.headers.allow).split(/,\s*/).sort()).toEqual(['DELETE', 'GET', 'HEAD', 'PATCH']);
    });

    it('HEAD is answered like GET, without a body', async () => {
      const res = await request(gateway.app).head('/health/live');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.text ?? '').toBe('');
      const missing = await request(gateway.app).head('/v1/nothing-here');
      expect(missing.status).toBe(404);
      const postOnly = await request(gateway.app).head('/v1/auth/exchange');
      expect(postOnly.status).toBe(405);
      expect(postOnly.headers.allow).toBe('POST');
    });
  });

  describe('request validation', () => {
    it('missing start parameters give 400 VALIDATION_FAILED naming each as a JSON pointer', async () => {
      const res = await request(gateway.app).get('/v1/auth/start');
      const body = expectProblem(res, 400, 'VALIDATION_FAILED');
      expect(pointers(body)).toEqual(['/query/platformKey', '/query/returnTo']);
    });

    it('invalid start parameters give 400 VALIDATION_FAILED naming each as a JSON pointer', async () => {
      const res = await request(gateway.app).get('/v1/auth/start').query({ platformKey: 'lower_case', returnTo: 'javascript:alert(1)' });
      const body = expectProblem(res, 400, 'VALIDATION_FAILED');
      expect(pointers(body)).toEqual(['/query/platformKey', '/query/returnTo']);
    });

    it('only the failing field is named', async () => {
      const res = await request(gateway.app).get('/v1/auth/start').query({ platformKey: 'DEMO', returnTo: '//evil.example/' });
      const body = expectProblem(res, 400, 'VALIDATION_FAILED');
      expect(pointers(body)).toEqual(['/query/returnTo']);
    });

    it('a browser (Accept: text/html) gets an HTML page with the same status, escaped, and no JSON', async () => {
      const res = await request(gateway.app)
        .get('/v1/auth/start')
        .query({ platformKey: '<script>alert(1)</script>', returnTo: '"><img src=x onerror=alert(2)>' })
        .set('Accept', 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8');
      expect(res.status).toBe(400);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.text).toMatch(/^<!doctype html>/i);
      expect(() => JSON.parse(res.text)).toThrow();
      // In words: the validator's pointers are for programs (problem+json).
      expect(res.text).toContain('This link is incomplete');
      expect(res.text).toContain('VALIDATION_FAILED');
      expect(res.text).toContain(String(res.headers['x-request-id']));
      expect(res.text).not.toMatch(/<script|<img|onerror/i);
      // how to start again
      expect(res.text).toMatch(/sign in again/i);
    });

    it('the page follows Accept-Language (German), keeps the code and reference, says so in Content-Language; problem+json stays as it is', async () => {
      const res = await request(gateway.app)
        .get('/v1/auth/start')
        .query({ platformKey: 'x' })
        .set('Accept', 'text/html')
        .set('Accept-Language', 'de-DE,de;q=0.9,en;q=0.8');
      expect(res.status).toBe(400);
      expect(res.headers['content-language']).toBe('de');
      expect(res.headers.vary).toMatch(/Accept-Language/);
      expect(res.text).toContain('<html lang="de">');
      expect(res.text).toContain('<h1>Dieser Link ist unvollständig</h1>');
      expect(res.text).toContain('Bitte kehren Sie zu der Anwendung zurück, von der Sie gekommen sind, und melden Sie sich erneut an.');
      expect(res.text).toContain(`Wenn Sie sich an den Support wenden, geben Sie bitte an: <code>VALIDATION_FAILED</code> · <code>${String(res.headers['x-request-id'])}</code>`);
      const json = await request(gateway.app).get('/v1/auth/start').query({ platformKey: 'x' }).set('Accept-Language', 'de');
      expect(json.body).toMatchObject({ code: 'VALIDATION_FAILED', title: 'The request is not valid' });
      // A language the pages do not speak gets English.
      const french = await request(gateway.app).get('/v1/auth/start').query({ platformKey: 'x' }).set('Accept', 'text/html').set('Accept-Language', 'fr-FR');
      expect(french.text).toContain('<h1>This link is incomplete</h1>');
    });

    it('a non-browser operation answers problem+json even to Accept: text/html', async () => {
      const res = await request(gateway.app).post('/v1/auth/exchange').set('Accept', 'text/html').send({ code: 'handoff_x' });
      expectProblem(res, 401, 'INVALID_CLIENT_CREDENTIALS');
    });
  });

  describe('request bodies', () => {
    it('a non-JSON content type (after valid-looking Basic) gives 415 UNSUPPORTED_MEDIA_TYPE', async () => {
      const res = await request(gateway.app)
        .post('/v1/auth/exchange')
        .set('Authorization', basic('client_demo', 'secret'))
        .set('Content-Type', 'text/plain')
        .send('code=handoff_abc');
      expectProblem(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
    });

    it('malformed JSON gives 400 MALFORMED_REQUEST', async () => {
      const res = await request(gateway.app)
        .post('/v1/auth/exchange')
        .set('Authorization', basic('client_demo', 'secret'))
        .set('Content-Type', 'application/json')
        .send('{"code": "handoff_abc"');
      const body = expectProblem(res, 400, 'MALFORMED_REQUEST');
      expect(JSON.stringify(body)).not.toContain('handoff_abc');
    });

    it('a body over 64 KiB gives 413 PAYLOAD_TOO_LARGE', async () => {
      const res = await request(gateway.app)
        .post('/v1/auth/exchange')
        .set('Authorization', basic('client_demo', 'secret'))
        .set('Content-Type', 'application/json')
        .send(JSON.stringify({ code: `handoff_${'a'.repeat(65 * 1024)}` }));
      expectProblem(res, 413, 'PAYLOAD_TOO_LARGE');
    });

    it('a schema-invalid exchange body (after valid-looking Basic) names the field', async () => {
      const res = await request(gateway.app)
        .post('/v1/auth/exchange')
        .set('Authorization', basic('client_demo', 'secret'))
        .send({ code: 'not-a-handoff', extra: 1 });
      const body = expectProblem(res, 400, 'VALIDATION_FAILED');
      expect(pointers(body)).toEqual(['/body/code', '/body/extra']);
    });
  });

  describe('authentication runs first', () => {
    it('missing Basic on the exchange gives 401 INVALID_CLIENT_CREDENTIALS with the contract challenge', async () => {
      const res = await request(gateway.app).post('/v1/auth/exchange').send({ code: 'handoff_abc' });
      expectProblem(res, 401, 'INVALID_CLIENT_CREDENTIALS');
      expect(res.headers['www-authenticate']).toMatch(/^Basic /);
      expect(res.headers['www-authenticate']).toBe(contract.components.headers.WwwAuthenticateBasic?.schema.const);
    });

    it.each([
      ['a Bearer token', 'Bearer abc.def.ghi'],
      ['Basic without a colon', `Basic ${Buffer.from('nocolon').toString('base64')}`],
      ['Basic with an empty secret', basic('client_demo', '')],
    ])('%s on the exchange gives 401 INVALID_CLIENT_CREDENTIALS', async (_name, authorization) => {
      const res = await request(gateway.app).post('/v1/auth/exchange').set('Authorization', authorization).send({ code: 'handoff_abc' });
      expectProblem(res, 401, 'INVALID_CLIENT_CREDENTIALS');
      expect(res.headers['www-authenticate']).toMatch(/^Basic /);
    });

    it('missing Basic wins over a bad body (401 before 415 and 400)', async () => {
      const unsupported = await request(gateway.app).post('/v1/auth/exchange').set('Content-Type', 'text/plain').send('x');
      expectProblem(unsupported, 401, 'INVALID_CLIENT_CREDENTIALS');
      const invalid = await request(gateway.app).post('/v1/auth/exchange').send({ nope: true });
      expectProblem(invalid, 401, 'INVALID_CLIENT_CREDENTIALS');
    });

    it('an unauthenticated call to a pending protected operation gives 401 UNAUTHENTICATED, not 501', async () => {
      const res = await request(gateway.app).get('/v1/me');
      expectProblem(res, 401, 'UNAUTHENTICATED');
    });

    it('an unauthenticated write to a pending operation gives 401 before 415 or 400', async () => {
      const wrongType = await request(gateway.app).put('/v1/onboarding/DEMO/values').set('Content-Type', 'text/plain').send('x');
      expectProblem(wrongType, 401, 'UNAUTHENTICATED');
      const badPath = await request(gateway.app).put('/v1/onboarding/lower/values').send({});
      expectProblem(badPath, 401, 'UNAUTHENTICATED');
    });

    it('an unknown gateway cookie gives 401 UNAUTHENTICATED on resume', async () => {
      const res = await request(gateway.app)
        .get('/v1/auth/resume')
        .query({ transaction: '00000000-0000-4000-8000-000000000000' })
        .set('Cookie', `${gateway.config.gatewayCookieName}=not-a-session`);
      expectProblem(res, 401, 'UNAUTHENTICATED');
    });
  });

  describe('request ids', () => {
    it('every response carries a generated X-Request-Id', async () => {
      const res = await request(gateway.app).get('/health/live').expect(200);
      expect(res.headers['x-request-id']).toMatch(UUID);
    });

    // A client-chosen id would be stored in the audit log as if the gateway had made it:
    // the gateway always uses its own, and keeps a client's only in its log lines.
    it('an incoming X-Request-Id is never adopted: the header and problem bodies carry the gateway\'s own', async () => {
      const id = 'bff-7f3a9c.req:42_x';
      const ok = await request(gateway.app).get('/health/live').set('X-Request-Id', id).expect(200);
      expect(ok.headers['x-request-id']).toMatch(UUID);
      const problem = await request(gateway.app).get('/v1/nothing').set('X-Request-Id', id);
      expect(problem.headers['x-request-id']).toMatch(UUID);
      expect(expectProblem(problem, 404, 'NOT_FOUND').requestId).toBe(problem.headers['x-request-id']);
      expect(problem.text).not.toContain(id);
    });

    it.each(['<script>alert(1)</script>', 'short', 'a b c d e f g h', 'x'.repeat(300), 'id"with\'quotes'])(
      'an unsafe incoming X-Request-Id (%j) is not echoed either',
      async (unsafe) => {
        const res = await request(gateway.app).get('/v1/nothing').set('X-Request-Id', unsafe);
        const body = expectProblem(res, 404, 'NOT_FOUND');
        expect(res.headers['x-request-id']).toMatch(UUID);
        expect(body.requestId).toBe(res.headers['x-request-id']);
        expect(res.text).not.toContain(unsafe);
      },
    );
  });

  describe('security headers', () => {
    it.each([
      ['a success', '/health/live'],
      ['a problem', '/v1/nothing'],
      ['the docs', '/docs'],
      ['the contract', '/openapi.json'],
    ])('%s carries nosniff, Referrer-Policy no-referrer and no X-Powered-By', async (_name, path) => {
      const res = await request(gateway.app).get(path);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['referrer-policy']).toBe('no-referrer');
      expect(res.headers['x-powered-by']).toBeUndefined();
      expect(res.headers['x-frame-options']).toBe('DENY');
    });

    it('HSTS only when the gateway is served over https', async () => {
      expect((await request(gateway.app).get('/health/live')).headers['strict-transport-security']).toBeUndefined();
      const overHttps = await createTestApp({ db: database.db, env: { PUBLIC_BASE_URL: 'https://gateway.test' } });
      const res = await request(overHttps.app).get('/health/live');
      expect(res.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
    });
  });

  describe('Content-Security-Policy', () => {
    const DEFAULT_POLICY = {
      'default-src': ["'none'"],
      'style-src': ["'unsafe-inline'"],
      'img-src': ["'self'"],
      'frame-ancestors': ["'none'"],
      'base-uri': ["'none'"],
      'form-action': ["'self'"],
    };

    it('the HTML problem page of the flow endpoints allows only its inline style', async () => {
      const res = await request(gateway.app).get('/v1/auth/start').set('Accept', 'text/html');
      expect(res.status).toBe(400);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(parsePolicy(String(res.headers['content-security-policy']))).toEqual(DEFAULT_POLICY);
    });

    it.each([['a success', '/health/live'], ['a problem', '/v1/nothing'], ['the contract', '/openapi.json']])(
      '%s carries the default policy too',
      async (_name, path) => {
        const res = await request(gateway.app).get(path);
        expect(parsePolicy(String(res.headers['content-security-policy']))).toEqual(DEFAULT_POLICY);
      },
    );
  });

  describe('CORS', () => {
    const allowed = 'http://account.test';

    it('the test config allows exactly the account center origin', () => {
      expect(gateway.config.corsOrigins).toEqual([allowed]);
    });

    it('a preflight from an allowed origin gets that exact origin, with credentials', async () => {
      const res = await request(gateway.app)
        .options('/v1/onboarding/DEMO/values')
        .set('Origin', allowed)
        .set('Access-Control-Request-Method', 'PUT')
        .set('Access-Control-Request-Headers', 'content-type');
      expect(res.status).toBeGreaterThanOrEqual(200);
      expect(res.status).toBeLessThan(300);
      expect(res.headers['access-control-allow-origin']).toBe(allowed);
      expect(res.headers['access-control-allow-credentials']).toBe('true');
      expect(String(res.headers['access-control-allow-methods'])).toContain('PUT');
      expect(String(res.headers['access-control-allow-headers']).toLowerCase()).toContain('content-type');
      expect(String(res.headers.vary)).toMatch(/Origin/i);
    });

    it('an actual request from an allowed origin gets that exact origin, with credentials, and exposes X-Request-Id', async () => {
      const res = await request(gateway.app).get('/health/live').set('Origin', allowed).expect(200);
      expect(res.headers['access-control-allow-origin']).toBe(allowed);
      expect(res.headers['access-control-allow-credentials']).toBe('true');
      expect(String(res.headers['access-control-expose-headers'])).toMatch(/X-Request-Id/i);
      expect(String(res.headers.vary)).toMatch(/Origin/i);
    });

    it.each(['http://evil.test', 'null', 'http://account.test.evil.test', 'https://account.test', 'http://account.test:8080'])(
      'origin %s gets no Access-Control-Allow-Origin (never *)',
      async (origin) => {
        const preflight = await request(gateway.app)
          .options('/v1/onboarding/DEMO/values')
          .set('Origin', origin)
          .set('Access-Control-Request-Method', 'PUT');
        expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
        expect(preflight.headers['access-control-allow-credentials']).toBeUndefined();
        const actual = await request(gateway.app).get('/health/live').set('Origin', origin).expect(200);
        expect(actual.headers['access-control-allow-origin']).toBeUndefined();
        expect(actual.headers['access-control-allow-credentials']).toBeUndefined();
      },
    );
  });

  it('JSON answers carry no ETag, so a conditional GET never gets an undocumented 304', async () => {
    const first = await request(gateway.app).get('/health/live').expect(200);
    expect(first.headers.etag).toBeUndefined();
    await request(gateway.app).get('/health/live').set('If-None-Match', first.headers.etag ?? 'W/"d-anything"').expect(200);
  });

  describe('docs', () => {
    it('GET /docs is an HTML page that loads only local assets', async () => {
      const res = await request(gateway.app).get('/docs').expect(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.text).not.toMatch(/https?:\/\//i);
      const references = [...res.text.matchAll(/\b(?:src|href)\s*=\s*["']([^"']+)["']/gi)].map((match) => match[1]!);
      expect(references.length).toBeGreaterThanOrEqual(2);
      for (const reference of references) {
        expect(reference, reference).toMatch(/^\/(?!\/)/);
        const asset = await request(gateway.app).get(reference);
        expect({ reference, status: asset.status }).toEqual({ reference, status: 200 });
      }
    });

    it('the Swagger UI bundle is served locally as JavaScript', async () => {
      const res = await request(gateway.app).get('/docs/swagger-ui-bundle.js').expect(200);
      expect(res.headers['content-type']).toMatch(/^(?:application|text)\/javascript/);
      expect(Number(res.headers['content-length'] ?? res.text.length)).toBeGreaterThan(100_000);
    });

    it('the UI is pointed at its local copy of the contract, /docs/openapi.json', async () => {
      const res = await request(gateway.app).get('/docs/init.js').expect(200);
      expect(res.headers['content-type']).toMatch(/^(?:application|text)\/javascript/);
      expect(res.text).toContain("url: '/docs/openapi.json'");
      expect(res.text).not.toMatch(/https?:\/\//i);
    });

    // The person's way through: the first operation on the first screen, and "Try it out"
    // calling the origin the page was opened at (localhost or 127.0.0.1).
    it("the docs' contract has a one-paragraph introduction linking to the full text, and a relative server", async () => {
      const docs = (await request(gateway.app).get('/docs/openapi.json').expect(200)).body as { info: { description: string }; servers: unknown; paths: object };
      const full = (contract as unknown as { info: { description: string } }).info.description;
      expect(docs.servers).toEqual([{ url: '/', description: expect.any(String) }]);
      expect(docs.info.description.length).toBeLessThan(600);
      expect(docs.info.description.startsWith(full.split('\n\n')[0]!)).toBe(true);
      expect(docs.info.description).toContain('](/docs/introduction)');
      expect(Object.keys(docs.paths)).toEqual(Object.keys((contract as unknown as { paths: object }).paths));
      const introduction = await request(gateway.app).get('/docs/introduction').expect(200);
      expect(introduction.headers['content-type']).toMatch(/^text\/plain; charset=utf-8/);
      expect(introduction.text).toBe(full);
    });

    it('/openapi.json keeps the full contract and PUBLIC_BASE_URL as its server (what generated clients read)', async () => {
      const served = (await request(gateway.app).get('/openapi.json').expect(200)).body as { info: { description: string }; servers: { url: string }[] };
      expect(served.info.description).toBe((contract as unknown as { info: { description: string } }).info.description);
      expect(served.servers).toEqual([{ url: gateway.deps.config.publicBaseUrl, description: 'This gateway' }]);
    });

    // Only what the page loads is served: swagger-ui-dist's stock index.html points the UI
    // at an outside demo contract, and oauth2-redirect.html is an OAuth callback page.
    it.each(['/docs/index.html', '/docs/oauth2-redirect.html', '/docs/oauth2-redirect.js', '/docs/swagger-initializer.js', '/docs/index.css', '/docs/swagger-ui.js', '/docs/swagger-ui-es-bundle.js', '/docs/swagger-ui-standalone-preset.js', '/docs/package.json', '/docs/README.md', '/docs/swagger-ui-bundle.js.map', '/docs/absolute-path.js'])(
      'the stock swagger-ui-dist file %s is not served',
      async (path) => {
        const res = await request(gateway.app).get(path);
        expectProblem(res, 404, 'NOT_FOUND');
      },
    );

    it.each(['/docs/swagger-ui-bundle.js', '/docs/swagger-ui.css', '/docs/favicon-32x32.png', '/docs/favicon-16x16.png', '/docs/init.js', '/docs/openapi.json', '/docs/introduction'])(
      'the asset %s the page loads is served',
      async (path) => {
        await request(gateway.app).get(path).expect(200);
        await request(gateway.app).head(path).expect(200);
      },
    );

    it('the docs page carries its own Content-Security-Policy: scripts and connections only from the gateway', async () => {
      const res = await request(gateway.app).get('/docs').expect(200);
      const policy = parsePolicy(String(res.headers['content-security-policy']));
      expect(policy).toEqual({
        'default-src': ["'none'"],
        'script-src': ["'self'"],
        'style-src': ["'self'", "'unsafe-inline'"],
        'img-src': ["'self'", 'data:'],
        'connect-src': ["'self'"],
        'frame-ancestors': ["'none'"],
        'base-uri': ["'none'"],
        'form-action': ["'none'"],
        'object-src': ["'none'"],
      });
      // No inline script on the page: script-src 'self' would block it.
      expect(res.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/i);
    });

    it('an unknown docs asset is a 404 NOT_FOUND problem, not a 500', async () => {
      const res = await request(gateway.app).get('/docs/does-not-exist.js');
      expectProblem(res, 404, 'NOT_FOUND');
      expect(res.text).not.toContain('node_modules');
    });
  });

  describe('5xx answers never carry internal messages', () => {
    let broken: Awaited<ReturnType<typeof createApp>>;

    beforeAll(async () => {
      broken = await createApp(gateway.deps, {
        validateResponses: true,
        handlers: {
          ...handlers,
          getLiveness: async () => {
            throw new Error('secret internal detail');
          },
          startAuthentication: async () => {
            throw new TypeError('secret internal detail at /srv/app/src/x.ts:12');
          },
          handleIdpCallback: async () => {
            throw new ApiError('INVALID_REDIRECT', '<img src=x onerror=alert(1)> & "quoted" \'text\'');
          },
        },
      });
    });

    it('an unexpected exception gives 500 INTERNAL_ERROR with only the catalogue title', async () => {
      const res = await request(broken).get('/health/live');
      const body = expectProblem(res, 500, 'INTERNAL_ERROR');
      expect(body.detail).toBeUndefined();
      expect(body.errors).toBeUndefined();
      expect(res.text).not.toContain('secret internal detail');
      expect(res.text).not.toMatch(/Error|stack|\.ts/);
    });

    it('the HTML page of a 500 carries no internal message either', async () => {
      const res = await request(broken)
        .get('/v1/auth/start')
        .query({ platformKey: 'DEMO', returnTo: '/x' })
        .set('Accept', 'text/html');
      expect(res.status).toBe(500);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.text).toContain(ERROR_CATALOGUE.INTERNAL_ERROR.title);
      expect(res.text).not.toContain('secret internal detail');
      expect(res.text).not.toContain('/srv/app');
    });

    it('the HTML page escapes what it echoes', async () => {
      const res = await request(broken)
        .get('/v1/auth/callback')
        .query({ code: 'abc', state: 'def' })
        .set('Accept', 'text/html');
      expect(res.status).toBe(400);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.text).not.toMatch(/<img|"quoted"|'text'/);
      expect(res.text).toContain('&#60;img src=x onerror=alert(1)&#62; &#38; &#34;quoted&#34; &#39;text&#39;');
    });
  });
});
