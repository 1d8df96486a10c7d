import { describe, expect, it } from 'vitest';
import { generateKeyPairSync } from 'node:crypto';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { generateSigningKeySpec, parseSigningKeys, signingKeysFor, signingKeysFromSpec } from '../../src/security/signingKeys.ts';
import { signLogoutToken, BACKCHANNEL_LOGOUT_EVENT } from '../../src/services/backchannel/delivery.ts';
import { loadConfig } from '../../src/config/index.ts';

const pkcs8 = (key: ReturnType<typeof generateKeyPairSync>['privateKey']) => key.export({ format: 'der', type: 'pkcs8' }).toString('base64url');

describe('GATEWAY_SIGNING_KEYS', () => {
  describe('parsing', () => {
    it('reads kid:base64url(PKCS#8 DER) entries, first one signing', () => {
      const spec = `${generateSigningKeySpec('new')},${generateSigningKeySpec('old')}`;
      const keys = parseSigningKeys(spec);
      expect(keys.activeKid).toBe('new');
      expect(keys.kids).toEqual(['new', 'old']);
      // Spaces around entries are ignored; standard base64 is accepted too.
      const [kid, text] = generateSigningKeySpec('b64').split(':') as [string, string];
      expect(parseSigningKeys(` ${kid}:${Buffer.from(text, 'base64url').toString('base64')} `).activeKid).toBe('b64');
    });

    it.each([
      ['an empty value', '', /empty/],
      ['an empty entry', `${generateSigningKeySpec('a')},`, /entry 2 is empty/],
      ['an entry without a colon', 'justakey', /entry 1 must have the form kid:/],
      ['a bad key id', `bad kid!:${generateSigningKeySpec().split(':')[1]}`, /entry 1: key id must match/],
      ['a key id over 32 characters', `${'k'.repeat(33)}:${generateSigningKeySpec().split(':')[1]}`, /key id must match/],
      ['a duplicate key id', `${generateSigningKeySpec('same')},${generateSigningKeySpec('same')}`, /entry 2: duplicate key id "same"/],
      ['a key that is not base64url', 'k1:not base64!', /entry 1 \(key id "k1"\): key is not base64url/],
      ['bytes that are not PKCS#8 DER', `k1:${Buffer.from('definitely not a key').toString('base64url')}`, /not a PKCS#8 DER private key/],
    ])('refuses %s', (_name, spec, message) => {
      expect(() => parseSigningKeys(spec)).toThrow(message);
    });

    it.each([
      ['an RSA key', () => generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey],
      ['an EC key on P-384', () => generateKeyPairSync('ec', { namedCurve: 'P-384' }).privateKey],
      ['an Ed25519 key', () => generateKeyPairSync('ed25519').privateKey],
    ])('refuses %s: only EC P-256 (ES256)', (_name, make) => {
      expect(() => parseSigningKeys(`k1:${pkcs8(make())}`)).toThrow(/key "k1" must be an EC P-256 private key/);
    });

    it('never echoes key material in its messages', () => {
      const material = generateSigningKeySpec().split(':')[1]!;
      for (const spec of [`bad kid!:${material}`, `k1:${material.slice(0, -10)}`, `k1:${material}!`]) {
        let message = '';
        try {
          parseSigningKeys(spec);
        } catch (error) {
          message = (error as Error).message;
        }
        expect(message).not.toBe('');
        expect(message).not.toContain(material.slice(0, 20));
      }
    });
  });

  describe('signing and publishing', () => {
    const spec = `${generateSigningKeySpec('s2')},${generateSigningKeySpec('s1')}`;
    const keys = parseSigningKeys(spec);

    it('publishes every key, public parts only, with kid, alg ES256 and use sig', () => {
      expect(keys.jwks.keys.map((key) => key.kid)).toEqual(['s2', 's1']);
      for (const key of keys.jwks.keys) {
        expect(Object.keys(key).sort()).toEqual(['alg', 'crv', 'kid', 'kty', 'use', 'x', 'y']);
        expect(key).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
        expect(key).not.toHaveProperty('d');
      }
      expect(JSON.stringify(keys)).toBe(JSON.stringify({ activeKid: 's2', kids: ['s2', 's1'] }));
    });

    it('the first key signs: a logout token verifies against the published set, with its claims and header', async () => {
      const token = await signLogoutToken(keys, {
        issuer: 'https://gateway.example.test',
        audience: 'pc_client',
        subject: '6f1c2d9e-0000-4000-8000-000000000001',
        sessionId: '6f1c2d9e-0000-4000-8000-000000000002',
      });
      expect(decodeProtectedHeader(token)).toEqual({ alg: 'ES256', kid: 's2', typ: 'logout+jwt' });
      const { payload } = await jwtVerify(token, createLocalJWKSet({ keys: keys.jwks.keys.map((key) => ({ ...key })) }), {
        issuer: 'https://gateway.example.test',
        audience: 'pc_client',
        typ: 'logout+jwt',
        algorithms: ['ES256'],
      });
      expect(payload).toMatchObject({ sub: '6f1c2d9e-0000-4000-8000-000000000001', sid: '6f1c2d9e-0000-4000-8000-000000000002', events: { [BACKCHANNEL_LOGOUT_EVENT]: {} } });
      expect(payload.jti).toMatch(/^[0-9a-f-]{36}$/);
      expect(payload.exp! - payload.iat!).toBeGreaterThan(0);
      expect(payload.exp! - payload.iat!).toBeLessThanOrEqual(300);
      expect(payload).not.toHaveProperty('nonce');
      // Each token has its own jti.
      const again = await signLogoutToken(keys, { issuer: 'i', audience: 'a', subject: 's', sessionId: 'x' });
      expect((await jwtVerify(again, createLocalJWKSet({ keys: keys.jwks.keys.map((key) => ({ ...key })) }))).payload.jti).not.toBe(payload.jti);
    });

    it('a token signed by the old key still verifies while the old key is published (rotation)', async () => {
      const oldRing = parseSigningKeys(spec.split(',')[1]!);
      const token = await signLogoutToken(oldRing, { issuer: 'i', audience: 'a', subject: 's', sessionId: 'x' });
      const { protectedHeader } = await jwtVerify(token, createLocalJWKSet({ keys: keys.jwks.keys.map((key) => ({ ...key })) }));
      expect(protectedHeader.kid).toBe('s1');
    });
  });

  describe('configuration', () => {
    it('a value is parsed once per process (the KeyObjects are made once)', () => {
      const spec = generateSigningKeySpec('once');
      expect(signingKeysFromSpec(spec)).toBe(signingKeysFromSpec(spec));
      const config = loadConfig({ GATEWAY_SIGNING_KEYS: spec });
      expect(signingKeysFor(config)).toBe(signingKeysFromSpec(spec));
    });

    it('refuses a bad value at boot, naming the variable', () => {
      expect(() => loadConfig({ GATEWAY_SIGNING_KEYS: `k1:${pkcs8(generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey)}` })).toThrow(
        /GATEWAY_SIGNING_KEYS is refused: entry 1: key "k1" must be an EC P-256 private key/,
      );
    });

    it('is required in production', () => {
      expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/GATEWAY_SIGNING_KEYS is required when NODE_ENV=production/);
      expect(() => signingKeysFor({ gatewaySigningKeys: null, isProduction: true })).toThrow(/GATEWAY_SIGNING_KEYS is required/);
    });

    it('outside production, unset means one development key for the whole process', () => {
      const config = loadConfig({});
      expect(config.gatewaySigningKeys).toBeNull();
      const dev = signingKeysFor(config);
      expect(dev.activeKid).toMatch(/^dev-[0-9a-f]{8}$/);
      expect(signingKeysFor(loadConfig({}))).toBe(dev);
    });
  });
});
