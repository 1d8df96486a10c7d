import { readdirSync } from 'node:fs';
import express from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { catalogueProblems } from '../../account-center/src/i18n/checkCatalogues.ts';
import { DEFAULT_PAGE_LANGUAGE, PAGE_LANGUAGES, pageIntl, pageLanguageOf } from '../../src/web/i18n.ts';
import { PAGE_CATALOGUES } from '../../src/web/messages/index.ts';

const MESSAGES_DIR = new URL('../../src/web/messages/', import.meta.url);

describe("the gateway pages' message catalogues", () => {
  it('have every key in every language, prefixed with its area, parsing as ICU with the same arguments', () => {
    expect(catalogueProblems(PAGE_CATALOGUES, PAGE_LANGUAGES, DEFAULT_PAGE_LANGUAGE)).toEqual([]);
  });

  it('are all registered: every file under src/web/messages/<language>/ is in PAGE_CATALOGUES', () => {
    const onDisk = PAGE_LANGUAGES.flatMap((language) =>
      readdirSync(new URL(`${language}/`, MESSAGES_DIR)).filter((name) => name.endsWith('.json')).map((name) => `${language}/${name.replace(/\.json$/, '')}`),
    );
    expect(PAGE_CATALOGUES.map((file) => `${file.language}/${file.area}`).sort()).toEqual(onDisk.sort());
  });

  it('format in the language asked for', () => {
    expect(pageIntl('de').formatMessage({ id: 'page.brand' })).toBe('Anmeldung');
    expect(pageIntl('en').formatMessage({ id: 'page.brand' })).toBe('Sign-in');
  });
});

describe('pageLanguageOf', () => {
  const app = express().get('/', (req, res) => {
    res.send(pageLanguageOf(req, typeof req.query.platform === 'string' ? req.query.platform : null));
  });
  const ask = async (acceptLanguage?: string) => {
    const call = request(app).get('/');
    return (await (acceptLanguage === undefined ? call : call.set('Accept-Language', acceptLanguage))).text;
  };

  it("follows Accept-Language by its weights, and English when it names nothing spoken here", async () => {
    expect(await ask('de-DE,de;q=0.9,en;q=0.8')).toBe('de');
    expect(await ask('fr-FR, en;q=0.5, de;q=0.7')).toBe('de');
    expect(await ask('en-GB,de;q=0.9')).toBe('en');
    expect(await ask('fr-FR,it')).toBe('en');
    expect(await ask()).toBe('en');
    expect(await ask('*;q=0.1, ,;;garbage')).toBe('en');
  });

  it("takes a wildcard alone (Node's fetch sends `Accept-Language: *`) as no preference: the platform's default language, as without the header", async () => {
    const withPlatform = async (acceptLanguage?: string) => {
      const call = request(app).get('/').query({ platform: 'de-AT' });
      return (await (acceptLanguage === undefined ? call : call.set('Accept-Language', acceptLanguage))).text;
    };
    expect(await withPlatform()).toBe('de');
    for (const wildcard of ['*', '*;q=0.5', '*, *;q=0.2']) expect(await withPlatform(wildcard), wildcard).toBe('de');
    // A language named before the wildcard still decides.
    expect(await withPlatform('en, *;q=0.1')).toBe('en');
  });
});
