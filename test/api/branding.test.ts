// Issue 27, branding per platform: the admin operations over real HTTP against real
// PostgreSQL and the dev identity provider (every response checked against the contract), the
// contrast refusal, and the logo through the avatars' checked pipeline with real images.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import sharp from 'sharp';
import { randomUUID } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { LOGO_MAX_BYTES } from '../../src/services/registry/index.ts';
import { seedPlatform, startRegistryTestContext, type Caller, type RegistryTestContext } from './registryHelpers.ts';

const solid = (width: number, height: number) => sharp({ create: { width, height, channels: 4, background: { r: 11, g: 110, b: 105, alpha: 1 } } });

/** A phone photo: EXIF with a camera make and a GPS position. */
const phonePhoto = () =>
  solid(800, 600)
    .flatten()
    .jpeg()
    .withExifMerge({
      IFD0: { Make: 'PhoneCo', Model: 'Pocket 9' },
      IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '48/1 51/1 2964/100', GPSLongitudeRef: 'E', GPSLongitude: '2/1 21/1 792/100' },
    })
    .toBuffer();

describe('platform branding API (issue 27)', () => {
  let database: TestDatabase;
  let ctx: RegistryTestContext;

  beforeAll(async () => {
    database = await createTestDatabase();
    ctx = await startRegistryTestContext(database.db);
  });
  afterAll(async () => {
    await ctx?.close();
    await database?.drop();
  });

  const api = () => request(ctx.gateway.app);
  const as = (caller: Caller, test: request.Test) => caller.apply(test);
  const upload = (caller: Caller, key: string, bytes: Buffer, type: string) =>
    as(caller, api().put(`/v1/platforms/${key}/branding/logo`)).set('Content-Type', type).send(bytes);
  const logoPath = (logoUrl: string) => new URL(logoUrl).pathname;

  it('starts empty, takes a colour and names, and reads them back (admin by cookie and Bearer)', async () => {
    const { key, platform } = await seedPlatform(database.db);
    const empty = await as(ctx.cookieAlice, api().get(`/v1/platforms/${key}/branding`)).expect(200);
    expect(empty.body).toEqual({ platformKey: key, displayName: platform.displayName, displayNames: {}, primaryColor: null, logoUrl: null });

    const set = await as(ctx.cookieAdmin, api().put(`/v1/platforms/${key}/branding`)).send({ primaryColor: '#0B6E69', displayNames: { de: 'Hafen Logistik' } }).expect(200);
    expect(set.body).toMatchObject({ primaryColor: '#0b6e69', displayNames: { de: 'Hafen Logistik' } });
    const read = await as(ctx.bearerAdmin, api().get(`/v1/platforms/${key}/branding`)).expect(200);
    expect(read.body).toEqual(set.body);

    const audit = await database.db.raw(`SELECT action, changed_fields FROM audit_events WHERE platform_key = ? AND action = 'platform.update'`, [key]);
    expect(audit.rows).toEqual([{ action: 'platform.update', changed_fields: ['primaryColor', 'displayNames'] }]);
  });

  it('refuses a colour below WCAG AA contrast with INSUFFICIENT_CONTRAST, and writes nothing', async () => {
    const { key } = await seedPlatform(database.db);
    for (const color of ['#ffcc00', '#767676', '#ff0000']) {
      const refused = await as(ctx.cookieAdmin, api().put(`/v1/platforms/${key}/branding`)).send({ primaryColor: color, displayNames: {} }).expect(400);
      expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(refused.body.code).toBe('VALIDATION_FAILED');
      expect(refused.body.errors).toEqual([expect.objectContaining({ pointer: '/body/primaryColor', reason: 'INSUFFICIENT_CONTRAST' })]);
    }
    // Not a colour at all: the contract's pattern.
    const malformed = await as(ctx.cookieAdmin, api().put(`/v1/platforms/${key}/branding`)).send({ primaryColor: 'red;background:url(//evil.test)', displayNames: {} }).expect(400);
    expect(malformed.body.errors[0]).toMatchObject({ pointer: '/body/primaryColor', reason: 'PATTERN' });
    const badTag = await as(ctx.cookieAdmin, api().put(`/v1/platforms/${key}/branding`)).send({ primaryColor: null, displayNames: { '<script>': 'x' } }).expect(400);
    expect(badTag.body.code).toBe('VALIDATION_FAILED');
    const { body } = await as(ctx.cookieAdmin, api().get(`/v1/platforms/${key}/branding`)).expect(200);
    expect(body.primaryColor).toBeNull();
  });

  it('is written only with platforms:admin, from an allowed origin; reading needs a signed-in caller', async () => {
    const { key } = await seedPlatform(database.db);
    const png = await solid(64, 64).png().toBuffer();
    await as(ctx.cookieAlice, api().put(`/v1/platforms/${key}/branding`)).send({ primaryColor: '#0b6e69', displayNames: {} }).expect(403);
    await as(ctx.bearerAlice, upload(ctx.bearerAlice, key, png, 'image/png')).expect(403);
    await as(ctx.cookieAlice, api().delete(`/v1/platforms/${key}/branding`)).expect(403);
    await as(ctx.cookieAdminForeignOrigin, api().put(`/v1/platforms/${key}/branding`)).send({ primaryColor: '#0b6e69', displayNames: {} }).expect(403);
    await api().get(`/v1/platforms/${key}/branding`).expect(401);
    await api().put(`/v1/platforms/${key}/branding/logo`).set('Content-Type', 'image/png').send(png).expect(401);
  });

  it('hides an inactive platform from a caller without platforms:admin', async () => {
    const { key } = await seedPlatform(database.db, { active: false });
    await as(ctx.cookieAlice, api().get(`/v1/platforms/${key}/branding`)).expect(404);
    await as(ctx.cookieAdmin, api().get(`/v1/platforms/${key}/branding`)).expect(200);
    await as(ctx.cookieAdmin, api().get('/v1/platforms/NO_SUCH_PLATFORM/branding')).expect(404);
  });

  describe('the logo, through the avatars’ checks', () => {
    it('is re-encoded as a bounded PNG, served public and immutable with nosniff; a new upload retires the old URL', async () => {
      const { key } = await seedPlatform(database.db);
      const first = await upload(ctx.cookieAdmin, key, await solid(1024, 512).png().toBuffer(), 'image/png').expect(200);
      expect(first.body.logoUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1\/platform-logos\/[0-9a-f-]{36}$|\/v1\/platform-logos\/[0-9a-f-]{36}$/);
      const served = await api().get(logoPath(first.body.logoUrl)).buffer(true).expect(200);
      expect(served.headers['content-type']).toBe('image/png');
      expect(served.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(served.headers['x-content-type-options']).toBe('nosniff');
      const meta = await sharp(served.body as Buffer).metadata();
      expect(meta).toMatchObject({ format: 'png', width: 256, height: 128 });

      const second = await upload(ctx.cookieAdmin, key, await solid(100, 100).webp().toBuffer(), 'image/webp').expect(200);
      expect(second.body.logoUrl).not.toBe(first.body.logoUrl);
      await api().get(logoPath(first.body.logoUrl)).expect(404);
      await api().get(logoPath(second.body.logoUrl)).expect(200);
      expect((await database.db.raw('SELECT count(*)::int AS n FROM platform_logos')).rows[0].n).toBeGreaterThanOrEqual(1);

      const removed = await as(ctx.cookieAdmin, api().delete(`/v1/platforms/${key}/branding/logo`)).expect(200);
      expect(removed.body.logoUrl).toBeNull();
      await api().get(logoPath(second.body.logoUrl)).expect(404);
      await as(ctx.cookieAdmin, api().delete(`/v1/platforms/${key}/branding/logo`)).expect(200); // idempotent
    });

    it('strips EXIF and its GPS position from a phone photo', async () => {
      const { key } = await seedPlatform(database.db);
      const photo = await phonePhoto();
      expect((await sharp(photo).metadata()).exif).toBeDefined();
      const { body } = await upload(ctx.bearerAdmin, key, photo, 'image/jpeg').expect(200);
      const served = await api().get(logoPath(body.logoUrl)).buffer(true).expect(200);
      const meta = await sharp(served.body as Buffer).metadata();
      expect(meta.exif).toBeUndefined();
      expect(meta.xmp).toBeUndefined();
      expect(meta.icc).toBeUndefined();
      expect((served.body as Buffer).includes(Buffer.from('PhoneCo'))).toBe(false);
    });

    it('refuses a non-image, a type that is not the bytes, an SVG with script, and an oversized body', async () => {
      const { key } = await seedPlatform(database.db);
      const text = await upload(ctx.cookieAdmin, key, Buffer.from('just some text, not a picture'), 'image/png').expect(400);
      expect(text.body.code).toBe('IMAGE_INVALID');
      const jpegAsPng = await upload(ctx.cookieAdmin, key, await solid(10, 10).flatten().jpeg().toBuffer(), 'image/png').expect(400);
      expect(jpegAsPng.body.code).toBe('IMAGE_INVALID');
      const truncated = (await solid(200, 200).png().toBuffer()).subarray(0, 120);
      expect((await upload(ctx.cookieAdmin, key, truncated, 'image/png').expect(400)).body.code).toBe('IMAGE_INVALID');
      const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
      expect((await upload(ctx.cookieAdmin, key, svg, 'image/svg+xml').expect(415)).body.code).toBe('UNSUPPORTED_MEDIA_TYPE');
      expect((await upload(ctx.cookieAdmin, key, svg, 'image/png').expect(400)).body.code).toBe('IMAGE_INVALID');
      // A decompression bomb: a few KiB of PNG that would decode to 48 megapixels (the limit is 40).
      const bomb = await sharp({ create: { width: 8000, height: 6000, channels: 3, background: '#0b6e69' } }).png({ compressionLevel: 9 }).toBuffer();
      expect(bomb.length).toBeLessThan(LOGO_MAX_BYTES);
      expect((await upload(ctx.cookieAdmin, key, bomb, 'image/png').expect(400)).body.code).toBe('IMAGE_INVALID');
      const oversized = Buffer.concat([await solid(10, 10).png().toBuffer(), Buffer.alloc(LOGO_MAX_BYTES)]);
      expect((await upload(ctx.cookieAdmin, key, oversized, 'image/png').expect(413)).body.code).toBe('PAYLOAD_TOO_LARGE');
      const { body } = await as(ctx.cookieAdmin, api().get(`/v1/platforms/${key}/branding`)).expect(200);
      expect(body.logoUrl).toBeNull();
    });

    it('keeps only the pixels of a PNG/HTML polyglot: the script after the image is gone', async () => {
      const { key } = await seedPlatform(database.db);
      const polyglot = Buffer.concat([await solid(32, 32).png().toBuffer(), Buffer.from('<html><script>alert(document.cookie)</script></html>')]);
      const { body } = await upload(ctx.cookieAdmin, key, polyglot, 'image/png').expect(200);
      const served = await api().get(logoPath(body.logoUrl)).buffer(true).expect(200);
      expect((served.body as Buffer).includes(Buffer.from('<script'))).toBe(false);
      expect(served.headers['content-type']).toBe('image/png');
    });

    it('is cleared with the rest of the branding', async () => {
      const { key } = await seedPlatform(database.db);
      await as(ctx.cookieAdmin, api().put(`/v1/platforms/${key}/branding`)).send({ primaryColor: '#5a2d82', displayNames: { de: 'Lila' } }).expect(200);
      const { body } = await upload(ctx.cookieAdmin, key, await solid(40, 40).png().toBuffer(), 'image/png').expect(200);
      const cleared = await as(ctx.cookieAdmin, api().delete(`/v1/platforms/${key}/branding`)).expect(200);
      expect(cleared.body).toMatchObject({ primaryColor: null, displayNames: {}, logoUrl: null });
      await api().get(logoPath(body.logoUrl)).expect(404);
      await api().get(`/v1/platform-logos/${randomUUID()}`).expect(404);
      await api().get('/v1/platform-logos/not-a-uuid').expect(400);
    });
  });
});
