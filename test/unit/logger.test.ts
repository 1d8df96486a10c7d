import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { DestinationStream } from 'pino';
import { createLogger, loggableUrl, LOGGED_CONTAINERS, wantsPrettyLogs } from '../../src/logger.ts';
import express from 'express';
import { accessLog, createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config/index.ts';
import { parseKeyRing, DEV_ENCRYPTION_KEYS } from '../../src/security/crypto.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';

/** A pino destination that keeps every line in memory. */
function memory(): { stream: DestinationStream; lines: string[]; text(): string } {
  const lines: string[] = [];
  return {
    stream: { write: (line: string) => void lines.push(line) },
    lines,
    text: () => lines.join(''),
  };
}

describe('createLogger redaction', () => {
  it('redacts the Authorization and Cookie request headers', () => {
    const sink = memory();
    createLogger('info', sink.stream).info(
      { req: { headers: { authorization: 'Basic Y2xpZW50OnNlY3JldA==', cookie: 'gw_session=gwt_token_value', accept: 'text/html' } } },
      'request',
    );
    expect(sink.lines).toHaveLength(1);
    const entry = JSON.parse(sink.lines[0]!);
    expect(entry.req.headers).toEqual({ authorization: '[redacted]', cookie: '[redacted]', accept: 'text/html' });
    expect(sink.text()).not.toMatch(/Y2xpZW50OnNlY3JldA|gwt_token_value/);
  });

  it.each([
    ['clientSecret', { platform: { clientId: 'client_demo', clientSecret: 'cs_secret_value' } }, 'platform'],
    ['gatewayToken', { session: { id: 's1', gatewayToken: 'gwt_secret_value' } }, 'session'],
    ['code', { query: { code: 'handoff_secret_value', other: 'kept' } }, 'query'],
    ['state', { query: { state: 'state_secret_value', other: 'kept' } }, 'query'],
    ['password', { body: { password: 'pw_secret_value' } }, 'body'],
    ['access_token', { tokens: { access_token: 'at_secret_value', id_token: 'it_secret_value' } }, 'tokens'],
  ])('redacts a nested %s', (name, object, parent) => {
    const sink = memory();
    createLogger('info', sink.stream).info(object, 'event');
    const entry = JSON.parse(sink.lines[0]!);
    expect(entry[parent][name]).toBe('[redacted]');
    expect(sink.text()).not.toMatch(/_secret_value/);
    // neighbours stay readable
    const neighbours = Object.keys((object as Record<string, Record<string, unknown>>)[parent]!).filter((key) => !/secret|token|code|state|password/i.test(key));
    for (const key of neighbours) expect(entry[parent][key]).toBe((object as Record<string, Record<string, unknown>>)[parent]![key]);
  });

  it.each(LOGGED_CONTAINERS)('redacts every secret field inside %s', (container) => {
    const sink = memory();
    const secrets = { password: 'p_secret_value', clientSecret: 'c_secret_value', client_secret: 'c2_secret_value', gatewayToken: 'g_secret_value', accessToken: 'a_secret_value', idToken: 'i_secret_value', access_token: 'a2_secret_value', id_token: 'i2_secret_value', refresh_token: 'r_secret_value', nonce: 'n_secret_value', code_verifier: 'v_secret_value', state: 's_secret_value' };
    createLogger('info', sink.stream).info({ [container]: { ...secrets, kept: 'visible' } }, 'event');
    expect(sink.text()).not.toMatch(/_secret_value/);
    expect(JSON.parse(sink.lines[0]!)[container].kept).toBe('visible');
  });

  it('keeps error codes readable (only a body or query `code` is a secret)', () => {
    const sink = memory();
    createLogger('info', sink.stream).error({ err: { code: '23505', message: 'duplicate key' } }, 'failed');
    expect(JSON.parse(sink.lines[0]!).err.code).toBe('23505');
  });

  it('redacts secrets at the top level too', () => {
    const sink = memory();
    createLogger('info', sink.stream).info({ clientSecret: 'cs_top_secret', gatewayToken: 'gwt_top_secret' }, 'event');
    expect(sink.text()).not.toMatch(/top_secret/);
  });

  it('writes nothing below its level', () => {
    const sink = memory();
    const logger = createLogger('warn', sink.stream);
    logger.info('quiet');
    logger.warn('loud');
    expect(sink.lines).toHaveLength(1);
    expect(JSON.parse(sink.lines[0]!).msg).toBe('loud');
  });
});

describe('wantsPrettyLogs', () => {
  it('pretty lines only for a person at a terminal in development', () => {
    expect(wantsPrettyLogs('development', true)).toBe(true);
    expect(wantsPrettyLogs('development', false)).toBe(false);
    expect(wantsPrettyLogs('development', undefined)).toBe(false);
    expect(wantsPrettyLogs('production', true)).toBe(false);
    expect(wantsPrettyLogs('test', true)).toBe(false);
  });
});

describe('loggableUrl', () => {
  it('drops the values of the query, keeping the names', () => {
    expect(loggableUrl('/v1/auth/callback?code=abc&state=def')).toBe('/v1/auth/callback?code=…&state=…');
  });

  it('keeps a URL without a query as it is', () => {
    expect(loggableUrl('/health/live')).toBe('/health/live');
  });

  it('lists a repeated name once and never a value', () => {
    const url = loggableUrl('/v1/auth/start?returnTo=https%3A%2F%2Fx.example%2Fa&returnTo=b&platformKey=DEMO');
    expect(url).toBe('/v1/auth/start?returnTo=…&platformKey=…');
    expect(url).not.toMatch(/x\.example|DEMO/);
  });

  it('escapes names so that a log line cannot be forged through them', () => {
    const url = loggableUrl('/x?a%0Ab=1');
    expect(url).not.toContain('\n');
  });
});

describe('request logs of the app', () => {
  let database: TestDatabase;
  const sink = memory();
  let app: Awaited<ReturnType<typeof createApp>>;

  const clientSecret = 'platform-client-secret-value';
  const basic = `Basic ${Buffer.from(`client_demo:${clientSecret}`).toString('base64')}`;
  const cookieToken = 'gwt_cookie_token_value';
  const secrets = ['handoff_secret', 's3cr3t', clientSecret, basic.slice(6), cookieToken];

  beforeAll(async () => {
    database = await createTestDatabase();
    const config = loadConfig({ NODE_ENV: 'test', PUBLIC_BASE_URL: 'http://gateway.test', ACCOUNT_CENTER_URL: 'http://account.test', LOG_LEVEL: 'info' });
    app = await createApp(
      { config, db: database.db, logger: createLogger('trace', sink.stream), keyRing: parseKeyRing(DEV_ENCRYPTION_KEYS), oidc: null, idpAccounts: null },
      { validateResponses: true },
    );
  });
  afterAll(async () => {
    await database.drop();
  });

  /** pino-http writes its line when the response finishes; wait for it rather than for a time. */
  async function logged(requestId: string): Promise<void> {
    for (let attempt = 0; attempt < 200 && !sink.lines.some((line) => line.includes(requestId)); attempt += 1) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(sink.lines.some((line) => line.includes(requestId)), `a log line for ${requestId}`).toBe(true);
  }

  it('never contain credentials, cookies, codes or state', async () => {
    const responses = [
      await request(app)
        .get('/v1/auth/callback?code=handoff_secret&state=s3cr3t')
        .set('Authorization', basic)
        .set('Cookie', `gw_session=${cookieToken}`),
      await request(app)
        .post('/v1/auth/exchange?code=handoff_secret&state=s3cr3t')
        .set('Authorization', basic)
        .set('Cookie', `gw_session=${cookieToken}`)
        .send({ code: 'handoff_secret' }),
      await request(app)
        .get('/v1/auth/resume?transaction=00000000-0000-4000-8000-000000000000&state=s3cr3t')
        .set('Authorization', basic)
        .set('Cookie', `gw_session=${cookieToken}`),
      await request(app)
        .post('/v1/auth/exchange')
        .set('Authorization', basic)
        .set('Content-Type', 'application/json')
        .send('{"code": "handoff_secret", "state": "s3cr3t"'),
      await request(app).get('/v1/nothing?code=handoff_secret&state=s3cr3t').set('Authorization', basic).set('Cookie', `gw_session=${cookieToken}`),
    ];
    for (const res of responses) {
      expect(res.status).toBeGreaterThanOrEqual(300);
      await logged(String(res.headers['x-request-id']));
    }

    // The requests were logged (with the names of the query parameters only) …
    const text = sink.text();
    expect(text).toContain('/v1/auth/callback?code=…&state=…');
    expect(text).toContain('/v1/auth/exchange?code=…&state=…');
    // … and no secret reached any line.
    for (const secret of secrets) expect({ secret, found: text.includes(secret) }).toEqual({ secret, found: false });
  });

  it('log a client mistake (4xx) and an operation not built yet (501) at info, a dependency down at warn', async () => {
    const levelOf = async (res: request.Response) => {
      const requestId = String(res.headers['x-request-id']);
      await logged(requestId);
      return (JSON.parse(sink.lines.find((entry) => entry.includes(requestId))!) as { level: number }).level;
    };
    expect(await levelOf(await request(app).get('/v1/nothing').expect(404))).toBe(30);
    expect(await levelOf(await request(app).post('/v1/platforms').send({}).expect(401))).toBe(30);
    // No OIDC client configured: the flow answers 503.
    expect(await levelOf(await request(app).get('/v1/auth/start?platformKey=NOPE&returnTo=%2F').expect(503))).toBe(40);
  });

  it('keep a well-formed client X-Request-Id as clientRequestId next to the gateway\'s own id', async () => {
    const res = await request(app).get('/v1/nothing').set('X-Request-Id', 'proxy-7f3a9c.req:42_x');
    const requestId = String(res.headers['x-request-id']);
    expect(requestId).not.toBe('proxy-7f3a9c.req:42_x');
    await logged(requestId);
    const line = JSON.parse(sink.lines.find((entry) => entry.includes(requestId))!);
    expect(line.req).toMatchObject({ id: requestId, clientRequestId: 'proxy-7f3a9c.req:42_x' });

    // A malformed one is not logged at all (log lines are not for arbitrary client text).
    const odd = await request(app).get('/v1/nothing').set('X-Request-Id', 'a b <c>');
    await logged(String(odd.headers['x-request-id']));
    expect(sink.text()).not.toContain('a b <c>');
  });

  it('a client that goes away while its body is read is logged at info, never as a 500 error', async () => {
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const before = sink.lines.length;
    try {
      const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
      await new Promise((resolve) => socket.once('connect', resolve));
      // Promise 1000 bytes, send a few, then hang up: body-parser raises request.aborted.
      socket.write('POST /v1/auth/exchange HTTP/1.1\r\nHost: gateway.test\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"code":"hand');
      await new Promise((resolve) => setTimeout(resolve, 50));
      socket.destroy();
      const closed = () => sink.lines.slice(before).some((line) => line.includes('client closed the request'));
      for (let attempt = 0; attempt < 200 && !closed(); attempt += 1) await new Promise((resolve) => setTimeout(resolve, 10));
      // pino-http's own line for the request follows on 'close'.
      await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
    const entries = sink.lines.slice(before).map((line) => JSON.parse(line) as { level: number; msg: string; res?: { statusCode: number } });
    expect(entries.find((entry) => entry.msg === 'client closed the request')?.level, JSON.stringify(entries)).toBe(30);
    expect(entries.filter((entry) => entry.level >= 40)).toEqual([]);
    expect(entries.filter((entry) => entry.res?.statusCode === 500)).toEqual([]);
    expect(entries.map((entry) => entry.msg)).not.toContain('unhandled error');
  });
});

describe('the access logger (its own redaction, without the paths under req and res)', () => {
  it('never lets a header, cookie, body or query code through req.log, whatever a line is given', async () => {
    const sink = memory();
    const app = express();
    app.use(accessLog(createLogger('info', sink.stream), false));
    app.get('/probe', (req, res) => {
      // What a careless line could hand it: the raw request and response, and containers of secrets.
      req.log.info({ req, res, headers: req.headers, query: req.query, body: { code: 'body_code_secret' }, state: 'top_state_secret' }, 'probe');
      res.setHeader('Set-Cookie', 'gw_session=set_cookie_secret');
      res.status(204).end();
    });
    const res = await request(app).get('/probe?code=query_code_secret').set('Authorization', 'Bearer bearer_secret').set('Cookie', 'gw_session=cookie_secret');
    expect(res.status).toBe(204);
    for (let attempt = 0; attempt < 200 && sink.lines.length < 2; attempt += 1) await new Promise((resolve) => setImmediate(resolve));
    const text = sink.text();
    for (const secret of ['body_code_secret', 'top_state_secret', 'set_cookie_secret', 'query_code_secret', 'bearer_secret', 'cookie_secret']) {
      expect({ secret, found: text.includes(secret) }).toEqual({ secret, found: false });
    }
    // The access line keeps its fields: request id, method, query-less URL; status code; time.
    const line = JSON.parse(sink.lines.find((l) => l.includes('request completed'))!) as Record<string, Record<string, unknown>>;
    expect(Object.keys(line.req!).sort()).toEqual(['id', 'method', 'url']);
    expect(line.req!.url).toBe('/probe?code=…');
    expect(line.res).toEqual({ statusCode: 204 });
    expect(typeof line.responseTime).toBe('number');
  });
});
