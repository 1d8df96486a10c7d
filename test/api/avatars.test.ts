// Issue 10: avatars in the embedded PostgreSQL store, over real HTTP against real
// PostgreSQL. Every response is checked against the contract (createTestApp), images are
// real ones made and read back with sharp.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import sharp from 'sharp';
import { randomBytes, randomUUID } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { startFakeIdp, type FakeIdp } from '../helpers/fakeIdp.ts';
import { upsertUserFromIdp } from '../../src/services/account/usersRepository.ts';
import { createSession } from '../../src/services/sessions/create.ts';
import { createPlatform, CLI_ACTOR } from '../../src/services/registry/index.ts';
import { randomToken, sha256 } from '../../src/security/crypto.ts';
import { uploadLinkSigner } from '../../src/services/avatars/signing.ts';

const ACCOUNT_CENTER = 'http://account.test';
const GATEWAY_CLIENT = 'avatar-gateway';
const IMMUTABLE = 'public, max-age=31536000, immutable';

type Auth = { cookie: string; origin?: string | null } | { bearer: string };

interface Ticket {
  uploadUrl: string;
  method: string;
  headers: Record<string, string>;
  expiresAt: string;
  confirmUrl: string | null;
  pictureUrl: string;
}

// ---------------------------------------------------------------- images

const solid = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: { r: 30, g: 120, b: 200 } } });
const png = (width = 300, height = 200) => solid(width, height).png().toBuffer();
const jpeg = (width = 300, height = 200) => solid(width, height).jpeg().toBuffer();
const webp = (width = 300, height = 200) => solid(width, height).webp().toBuffer();

/** A phone photo: EXIF with a camera make, an orientation (rotate 90°) and a GPS position. */
const phonePhoto = () =>
  solid(1600, 1200)
    .jpeg()
    .withMetadata({ orientation: 6 })
    .withExifMerge({
      IFD0: { Make: 'PhoneCo', Model: 'Pocket 9' },
      IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '48/1 51/1 2964/100', GPSLongitudeRef: 'E', GPSLongitude: '2/1 21/1 792/100' },
    })
    .toBuffer();

/** Whether an EXIF block (as sharp's metadata() gives it) has a GPS IFD (tag 0x8825 in IFD0). */
function hasGpsIfd(exif: Buffer): boolean {
  const tiff = exif.subarray(exif.subarray(0, 6).toString('latin1') === 'Exif\0\0' ? 6 : 0);
  const little = tiff.subarray(0, 2).toString('latin1') === 'II';
  const u16 = (at: number) => (little ? tiff.readUInt16LE(at) : tiff.readUInt16BE(at));
  const u32 = (at: number) => (little ? tiff.readUInt32LE(at) : tiff.readUInt32BE(at));
  const ifd0 = u32(4);
  for (let i = 0; i < u16(ifd0); i++) if (u16(ifd0 + 2 + i * 12) === 0x8825) return true;
  return false;
}

// ---------------------------------------------------------------- tests

describe('avatars, PostgreSQL store (issue 10)', () => {
  let database: TestDatabase;
  let idp: FakeIdp;
  let gateway: TestApp;
  let seq = 0;

  beforeAll(async () => {
    database = await createTestDatabase();
    idp = await startFakeIdp({ clientId: GATEWAY_CLIENT, clientSecret: randomBytes(24).toString('base64url') });
    gateway = await createTestApp({ db: database.db, oidc: { issuer: idp.issuer, clientId: GATEWAY_CLIENT, clientSecret: idp.clientSecret } });
  });
  afterAll(async () => {
    await idp?.close();
    await database?.drop();
  });

  const db = () => database.db;

  async function user() {
    const sub = `avatar-user-${++seq}`;
    const row = await upsertUserFromIdp(db(), { sub, email: null, emailVerified: false, displayName: null, givenName: null, familyName: null });
    const session = await createSession(db(), { userId: row.id, permissions: [], ttlSeconds: 3600 });
    return { id: row.id, sub, sessionId: session.id, cookie: `gw_session=${session.token}` };
  }

  function call(method: 'post' | 'delete', path: string, auth: Auth) {
    let req = request(gateway.app)[method](path);
    if ('cookie' in auth) {
      req = req.set('Cookie', auth.cookie);
      const origin = auth.origin === undefined ? ACCOUNT_CENTER : auth.origin;
      if (origin) req = req.set('Origin', origin);
    } else req = req.set('Authorization', `Bearer ${auth.bearer}`);
    return req;
  }

  const requestTicket = (auth: Auth, body: Record<string, unknown>) => call('post', '/v1/profile/me/avatar/upload-request', auth).send(body);

  async function ticketFor(auth: Auth, contentType: string, contentLength: number): Promise<Ticket> {
    return (await requestTicket(auth, { contentType, contentLength }).expect(201)).body as Ticket;
  }

  /** The path and query of an absolute gateway URL, for supertest. */
  const local = (url: string) => {
    const parsed = new URL(url);
    expect(parsed.origin).toBe('http://gateway.test');
    return parsed.pathname + parsed.search;
  };

  /** Sends bytes as a browser would: the ticket's method and URL, the given Content-Type. */
  const put = (ticket: Ticket, bytes: Buffer, contentType = ticket.headers['Content-Type']!) =>
    request(gateway.app).put(local(ticket.uploadUrl)).set('Content-Type', contentType).send(bytes);

  async function upload(auth: Auth, bytes: Buffer, contentType: string): Promise<Ticket> {
    const ticket = await ticketFor(auth, contentType, bytes.length);
    await put(ticket, bytes).expect(204);
    return ticket;
  }

  const ticketId = (ticket: Ticket) => new URL(ticket.uploadUrl).pathname.split('/').pop()!;
  const avatarId = (ticket: Ticket) => new URL(ticket.pictureUrl).pathname.split('/').pop()!;
  const pictureUrlOf = async (userId: string) =>
    (await db().raw('SELECT picture_url FROM profiles WHERE user_id = ?', [userId])).rows[0]?.picture_url as string | null;
  const avatarRows = async (userId: string) => Number((await db().raw('SELECT count(*) AS n FROM avatars WHERE user_id = ?', [userId])).rows[0].n);

  async function fetchPicture(ticket: Ticket) {
    const response = await request(gateway.app)
      .get(local(ticket.pictureUrl))
      .buffer(true)
      .parse((res, done) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => done(null, Buffer.concat(chunks)));
      });
    return response as typeof response & { body: Buffer };
  }

  describe('tickets', () => {
    it("a ticket is a signed PUT to the gateway's own URL with exactly the declared headers, five minutes, no confirm step, a new pictureUrl", async () => {
      const member = await user();
      const before = Date.now();
      const response = await requestTicket(member, { contentType: 'image/png', contentLength: 245760 }).expect(201);
      expect(response.headers['cache-control']).toBe('no-store');
      const after = Date.now();
      const ticket = response.body as Ticket;
      expect(ticket).toEqual({
        uploadUrl: expect.stringMatching(/^http:\/\/gateway\.test\/v1\/avatar-uploads\/[0-9a-f-]{36}\?expires=\d+&signature=[A-Za-z0-9_-]{43}$/),
        method: 'PUT',
        headers: { 'Content-Type': 'image/png', 'Content-Length': '245760' },
        expiresAt: expect.any(String),
        confirmUrl: null,
        pictureUrl: expect.stringMatching(/^http:\/\/gateway\.test\/v1\/avatars\/[0-9a-f-]{36}$/),
      });
      const expiresAt = Date.parse(ticket.expiresAt);
      // Whole seconds: five minutes from the request, rounded down to the second.
      expect(expiresAt).toBeGreaterThan(before - 1000 + 300_000);
      expect(expiresAt).toBeLessThanOrEqual(after + 300_000);
      expect(Number(new URL(ticket.uploadUrl).searchParams.get('expires')) * 1000).toBe(expiresAt);
      const second = await ticketFor(member, 'image/png', 1000);
      expect(ticketId(second)).not.toBe(ticketId(ticket));
      expect(second.pictureUrl).not.toBe(ticket.pictureUrl);
    });

    it('refuses a type other than PNG, JPEG or WebP, and a size above AVATAR_MAX_BYTES (400)', async () => {
      const member = await user();
      for (const contentType of ['image/gif', 'image/svg+xml', 'text/html']) {
        const refused = await requestTicket(member, { contentType, contentLength: 1000 }).expect(400);
        expect(refused.body.errors).toEqual([expect.objectContaining({ pointer: '/body/contentType' })]);
      }
      expect((await requestTicket(member, { contentType: 'image/png', contentLength: 5 * 1024 * 1024 + 1 }).expect(400)).body.code).toBe('VALIDATION_FAILED');
      await requestTicket(member, { contentType: 'image/png', contentLength: 5 * 1024 * 1024 }).expect(201);
      // A smaller AVATAR_MAX_BYTES than the contract's ceiling is enforced by the service.
      const small = await createTestApp({ db: db(), env: { AVATAR_MAX_BYTES: '100000' } });
      const refused = await request(small.app).post('/v1/profile/me/avatar/upload-request').set('Cookie', member.cookie).set('Origin', ACCOUNT_CENTER)
        .send({ contentType: 'image/jpeg', contentLength: 100001 }).expect(400);
      expect(refused.body).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ pointer: '/body/contentLength', message: expect.stringContaining('100000') }] });
      await request(small.app).post('/v1/profile/me/avatar/upload-request').set('Cookie', member.cookie).set('Origin', ACCOUNT_CENTER)
        .send({ contentType: 'image/jpeg', contentLength: 100000 }).expect(201);
    });

    it('needs a caller (401); a cookie from an origin that is not allowed is refused (403) and no ticket is stored', async () => {
      await request(gateway.app).post('/v1/profile/me/avatar/upload-request').send({ contentType: 'image/png', contentLength: 10 }).expect(401);
      const member = await user();
      const refused = await call('post', '/v1/profile/me/avatar/upload-request', { ...member, origin: 'https://evil.example' })
        .send({ contentType: 'image/png', contentLength: 10 }).expect(403);
      expect(refused.body.code).toBe('ORIGIN_NOT_ALLOWED');
      expect(Number((await db().raw('SELECT count(*) AS n FROM avatar_upload_tickets WHERE user_id = ?', [member.id])).rows[0].n)).toBe(0);
      expect((await call('delete', '/v1/profile/me/avatar', { ...member, origin: 'https://evil.example' }).expect(403)).body.code).toBe('ORIGIN_NOT_ALLOWED');
    });

    it("a platform's own credential may request a ticket for its user, and the upload sets that user's picture", async () => {
      const member = await user();
      const key = `AVATAR_${++seq}_${randomBytes(2).toString('hex').toUpperCase()}`;
      await createPlatform(db(), { platformKey: key, displayName: key, callbackUrl: 'https://p.example/cb', allowedReturnUrls: ['https://p.example/'] }, CLI_ACTOR);
      const token = `gwp_${randomToken()}`;
      await db().raw(`INSERT INTO platform_credentials (session_id, platform_id, token_digest) SELECT ?, id, ? FROM platforms WHERE platform_key = ?`, [member.sessionId, sha256(token), key]);
      const credential = { cookie: `gw_session=${token}`, origin: null };
      const ticket = await upload(credential, await png(), 'image/png');
      expect(await pictureUrlOf(member.id)).toBe(ticket.pictureUrl);
    });

    it('a Bearer caller who never signed in through the gateway gets 403 FORBIDDEN; one who did gets a ticket', async () => {
      const now = Math.floor(Date.now() / 1000);
      const token = (sub: string) => idp.signJwt({ iss: idp.issuer, aud: GATEWAY_CLIENT, client_id: GATEWAY_CLIENT, sub, iat: now, exp: now + 300 });
      const stranger = await requestTicket({ bearer: await token('never-signed-in') }, { contentType: 'image/png', contentLength: 10 }).expect(403);
      expect(stranger.body).toMatchObject({ code: 'FORBIDDEN', detail: expect.stringContaining('has not signed in through the gateway yet') });
      expect((await call('delete', '/v1/profile/me/avatar', { bearer: await token('never-signed-in') }).expect(403)).body.code).toBe('FORBIDDEN');
      const member = await user();
      await requestTicket({ bearer: await token(member.sub) }, { contentType: 'image/png', contentLength: 10 }).expect(201);
    });
  });

  describe('uploads', () => {
    it('a PNG, a JPEG and a WebP each become a WebP of at most 512×512 (aspect kept, never enlarged), the profile picture', async () => {
      const cases: Array<[string, Buffer, [number, number]]> = [
        ['image/png', await png(300, 200), [300, 200]],
        ['image/jpeg', await jpeg(2000, 1000), [512, 256]],
        ['image/webp', await webp(700, 1400), [256, 512]],
      ];
      for (const [contentType, bytes, [width, height]] of cases) {
        const member = await user();
        const ticket = await upload(member, bytes, contentType);
        expect(await pictureUrlOf(member.id)).toBe(ticket.pictureUrl);
        const picture = await fetchPicture(ticket);
        expect(picture.status).toBe(200);
        const metadata = await sharp(picture.body).metadata();
        expect([contentType, metadata.format, metadata.width, metadata.height]).toEqual([contentType, 'webp', width, height]);
      }
    });

    it('strips EXIF and GPS (and ICC) from a phone photo, turned upright by its orientation first', async () => {
      const photo = await phonePhoto();
      const input = await sharp(photo).metadata();
      expect(input.exif && hasGpsIfd(input.exif)).toBe(true);
      expect(input.exif!.toString('latin1')).toContain('PhoneCo');
      expect(input.orientation).toBe(6);

      const member = await user();
      const ticket = await upload(member, photo, 'image/jpeg');
      const picture = await fetchPicture(ticket);
      const output = await sharp(picture.body).metadata();
      expect(output).toMatchObject({ format: 'webp', width: 384, height: 512 }); // 1600×1200 turned upright
      expect(output.exif).toBeUndefined();
      expect(output.xmp).toBeUndefined();
      expect(output.icc).toBeUndefined();
      expect(output.orientation).toBeUndefined();
      expect(picture.body.toString('latin1')).not.toContain('PhoneCo');
    });

    it('bytes that are not the declared type are refused (400 IMAGE_INVALID) and the ticket is spent', async () => {
      const member = await user();
      const jpegBytes = await jpeg();
      const ticket = await ticketFor(member, 'image/png', jpegBytes.length);
      expect((await put(ticket, jpegBytes).expect(400)).body.code).toBe('IMAGE_INVALID');
      // A RIFF container that is not WebP, declared as WebP.
      const riff = Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WAVE'), randomBytes(100)]);
      const wave = await ticketFor(member, 'image/webp', riff.length);
      expect((await put(wave, riff).expect(400)).body.code).toBe('IMAGE_INVALID');
      const pngBytes = await png();
      const retry = await request(gateway.app).put(local(ticket.uploadUrl)).set('Content-Type', 'image/png').send(pngBytes);
      expect([retry.status, retry.body.code]).toEqual([404, 'UPLOAD_TICKET_INVALID']);
      expect(await pictureUrlOf(member.id)).toBeNull();
    });

    it('a truncated or corrupt image with the right magic bytes is refused (400 IMAGE_INVALID)', async () => {
      const member = await user();
      const whole = await jpeg(800, 600);
      const truncated = whole.subarray(0, Math.floor(whole.length / 2));
      expect((await put(await ticketFor(member, 'image/jpeg', truncated.length), truncated).expect(400)).body.code).toBe('IMAGE_INVALID');
      const corrupt = Buffer.concat([(await png()).subarray(0, 8), randomBytes(500)]);
      expect((await put(await ticketFor(member, 'image/png', corrupt.length), corrupt).expect(400)).body.code).toBe('IMAGE_INVALID');
      expect(await avatarRows(member.id)).toBe(0);
    });

    it('an image of more than 40 megapixels is refused (400 IMAGE_INVALID), however small the file', async () => {
      const member = await user();
      const blank = (width: number, height: number) =>
        sharp({ create: { width, height, channels: 3, background: '#000' } }).toColourspace('b-w').png({ compressionLevel: 9 }).toBuffer();
      const bomb = await blank(8000, 6000);
      expect(bomb.length).toBeLessThan(5 * 1024 * 1024);
      expect((await put(await ticketFor(member, 'image/png', bomb.length), bomb).expect(400)).body.code).toBe('IMAGE_INVALID');
      const fine = await blank(6000, 6000);
      await put(await ticketFor(member, 'image/png', fine.length), fine).expect(204);
    });

    it('a body longer than declared is 413, shorter is 400, another Content-Type 415; each spends the ticket', async () => {
      const member = await user();
      const bytes = await png();
      const longer = await ticketFor(member, 'image/png', bytes.length - 10);
      expect((await put(longer, bytes).expect(413)).body.code).toBe('PAYLOAD_TOO_LARGE');
      expect((await put(longer, bytes.subarray(0, bytes.length - 10)).expect(404)).body.code).toBe('UPLOAD_TICKET_INVALID');

      const shorter = await ticketFor(member, 'image/png', bytes.length + 10);
      expect((await put(shorter, bytes).expect(400)).body.code).toBe('IMAGE_INVALID');

      const typed = await ticketFor(member, 'image/png', bytes.length);
      expect((await put(typed, bytes, 'image/jpeg').expect(415)).body.code).toBe('UNSUPPORTED_MEDIA_TYPE');
      await put(typed, bytes).expect(404);
      const json = await ticketFor(member, 'image/png', bytes.length);
      await request(gateway.app).put(local(json.uploadUrl)).send({ not: 'an image' }).expect(415);
      await put(json, bytes).expect(404);
      expect(await pictureUrlOf(member.id)).toBeNull();
    });

    it('a replayed ticket is refused (404), and of many parallel uploads of one ticket exactly one wins', async () => {
      const member = await user();
      const bytes = await png();
      const ticket = await upload(member, bytes, 'image/png');
      expect((await put(ticket, bytes).expect(404)).body.code).toBe('UPLOAD_TICKET_INVALID');

      const raced = await ticketFor(member, 'image/png', bytes.length);
      const statuses = (await Promise.all(Array.from({ length: 8 }, () => put(raced, bytes)))).map((response) => response.status);
      expect(statuses.sort()).toEqual([204, 404, 404, 404, 404, 404, 404, 404]);
      expect(await pictureUrlOf(member.id)).toBe(raced.pictureUrl);
      expect(await avatarRows(member.id)).toBe(1);
    });

    it('an expired ticket is refused (404): expired in the database, or a valid signature over a past expiry', async () => {
      const member = await user();
      const bytes = await png();
      const stale = await ticketFor(member, 'image/png', bytes.length);
      await db().raw(`UPDATE avatar_upload_tickets SET expires_at = now() - interval '1 second' WHERE id = ?`, [ticketId(stale)]);
      expect((await put(stale, bytes).expect(404)).body.code).toBe('UPLOAD_TICKET_INVALID');

      // The signature is right but covers an expiry that has passed; the ticket itself is live.
      const live = await ticketFor(member, 'image/png', bytes.length);
      const past = Math.floor(Date.now() / 1000) - 1;
      const signature = uploadLinkSigner(gateway.deps.keyRing).sign(ticketId(live), past);
      const replayedPast = `/v1/avatar-uploads/${ticketId(live)}?expires=${past}&signature=${signature}`;
      expect((await request(gateway.app).put(replayedPast).set('Content-Type', 'image/png').send(bytes).expect(404)).body.code).toBe('UPLOAD_TICKET_INVALID');
      await put(live, bytes).expect(204); // the refused attempt did not spend it
    });

    it('a tampered signature or expiry, an unknown ticket, or another ticket\'s signature are refused (404) and spend nothing', async () => {
      const member = await user();
      const bytes = await png();
      const ticket = await ticketFor(member, 'image/png', bytes.length);
      const other = await ticketFor(member, 'image/png', bytes.length);
      const url = new URL(ticket.uploadUrl);
      const signature = url.searchParams.get('signature')!;
      const expires = Number(url.searchParams.get('expires'));
      const flipped = (signature[0] === 'A' ? 'B' : 'A') + signature.slice(1);
      const attempts = [
        `${url.pathname}?expires=${expires}&signature=${flipped}`,
        `${url.pathname}?expires=${expires + 60}&signature=${signature}`,
        `${url.pathname}?expires=${expires}&signature=${new URL(other.uploadUrl).searchParams.get('signature')}`,
        `/v1/avatar-uploads/${randomUUID()}?expires=${expires}&signature=${signature}`,
      ];
      for (const attempt of attempts) {
        const refused = await request(gateway.app).put(attempt).set('Content-Type', 'image/png').send(bytes);
        expect([attempt, refused.status, refused.body.code]).toEqual([attempt, 404, 'UPLOAD_TICKET_INVALID']);
      }
      await request(gateway.app).put(`${url.pathname}?expires=${expires}`).set('Content-Type', 'image/png').send(bytes).expect(400);
      await put(ticket, bytes).expect(204);
    });

    it('the confirm URL of the object store refuses a PostgreSQL ticket (404) without spending it', async () => {
      const member = await user();
      const bytes = await png();
      const ticket = await ticketFor(member, 'image/png', bytes.length);
      const url = new URL(ticket.uploadUrl);
      const refused = await request(gateway.app).post(`${url.pathname}/confirm${url.search}`).expect(404);
      expect(refused.body.code).toBe('UPLOAD_TICKET_INVALID');
      await put(ticket, bytes).expect(204);
    });
  });

  describe('published pictures', () => {
    it('getAvatar serves image/webp with immutable caching (and HEAD); an unknown id is 404', async () => {
      const member = await user();
      const ticket = await upload(member, await png(), 'image/png');
      const picture = await fetchPicture(ticket);
      expect(picture.status).toBe(200);
      expect(picture.headers['content-type']).toBe('image/webp');
      expect(picture.headers['cache-control']).toBe(IMMUTABLE);
      expect(picture.headers['x-content-type-options']).toBe('nosniff');
      expect(Number(picture.headers['content-length'])).toBe(picture.body.length);
      const head = await request(gateway.app).head(local(ticket.pictureUrl)).expect(200);
      expect(head.headers['content-type']).toBe('image/webp');
      expect((await request(gateway.app).get(`/v1/avatars/${randomUUID()}`).expect(404)).body.code).toBe('NOT_FOUND');
      await request(gateway.app).get('/v1/avatars/not-a-uuid').expect(400);
    });

    it('every upload has a new URL; the previous picture is deleted and its URL answers 404', async () => {
      const member = await user();
      const first = await upload(member, await png(), 'image/png');
      await fetchPicture(first).then((response) => expect(response.status).toBe(200));
      const second = await upload(member, await jpeg(), 'image/jpeg');
      expect(second.pictureUrl).not.toBe(first.pictureUrl);
      expect(await pictureUrlOf(member.id)).toBe(second.pictureUrl);
      expect((await fetchPicture(first)).status).toBe(404);
      expect((await fetchPicture(second)).status).toBe(200);
      const { rows } = await db().raw('SELECT id FROM avatars WHERE user_id = ?', [member.id]);
      expect(rows).toEqual([{ id: avatarId(second) }]);
    });

    it('deleteAvatar: 204, no picture_url, the bytes are gone, and again 204', async () => {
      const member = await user();
      const ticket = await upload(member, await png(), 'image/png');
      await call('delete', '/v1/profile/me/avatar', member).expect(204);
      expect(await pictureUrlOf(member.id)).toBeNull();
      expect(await avatarRows(member.id)).toBe(0);
      expect((await fetchPicture(ticket)).status).toBe(404);
      await call('delete', '/v1/profile/me/avatar', member).expect(204);
      await request(gateway.app).delete('/v1/profile/me/avatar').expect(401);
    });

    it("a deleted account's picture stops serving, and its open tickets are refused", async () => {
      const member = await user();
      const bytes = await png();
      const published = await upload(member, bytes, 'image/png');
      const open = await ticketFor(member, 'image/png', bytes.length);
      await db().raw('UPDATE users SET deleted_at = now() WHERE id = ?', [member.id]);
      expect((await fetchPicture(published)).status).toBe(404);
      expect((await put(open, bytes).expect(404)).body.code).toBe('UPLOAD_TICKET_INVALID');
    });
  });
});
