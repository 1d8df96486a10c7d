import { describe, expect, it } from 'vitest';
import { catalogueFiles } from './catalogues.ts';
import { catalogueProblems } from './checkCatalogues.ts';
import { DEFAULT_LANGUAGE, LANGUAGES } from './languages.ts';

describe("the account center's message catalogues", () => {
  it('have every key in every language, prefixed with its area, parsing as ICU with the same arguments', () => {
    expect(catalogueProblems(catalogueFiles(), LANGUAGES, DEFAULT_LANGUAGE)).toEqual([]);
  });

  it('hold the areas the convention names', () => {
    const areas = new Set(catalogueFiles().map((file) => file.area));
    for (const area of ['common', 'layout']) expect(areas).toContain(area);
  });
});

describe('the completeness check', () => {
  const en = (messages: Record<string, unknown>) => ({ language: 'en', area: 'demo', messages });
  const de = (messages: Record<string, unknown>) => ({ language: 'de', area: 'demo', messages });

  it('fails on a key missing in one language', () => {
    expect(catalogueProblems([en({ 'demo.a': 'A', 'demo.b': 'B' }), de({ 'demo.a': 'A' })], LANGUAGES, 'en')).toEqual(['de/demo: "demo.b" is missing (it is in en)']);
    expect(catalogueProblems([en({ 'demo.a': 'A' }), de({ 'demo.a': 'A', 'demo.c': 'C' })], LANGUAGES, 'en')).toEqual(['en/demo: "demo.c" is missing (it is in de)']);
  });

  it('fails on an area missing in one language', () => {
    expect(catalogueProblems([en({ 'demo.a': 'A' })], LANGUAGES, 'en')).toEqual(['de/demo: the file is missing']);
  });

  it('fails on a message that does not parse as ICU', () => {
    const problems = catalogueProblems([en({ 'demo.a': '{count, plural, one {# item}' }), de({ 'demo.a': '{count, plural, one {# Eintrag} other {# Einträge}}' })], LANGUAGES, 'en');
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^en\/demo: "demo.a" is not ICU MessageFormat/);
  });

  it('fails on a translation that drops or renames an argument, and on a key outside its area', () => {
    expect(catalogueProblems([en({ 'demo.a': 'Hello {name}' }), de({ 'demo.a': 'Hallo {nme}' })], LANGUAGES, 'en')).toEqual(['de/demo: "demo.a" uses {nme}, en uses {name}']);
    expect(catalogueProblems([en({ 'other.a': 'A' }), de({ 'other.a': 'A' })], LANGUAGES, 'en')).toEqual([
      'en/demo: "other.a" does not start with "demo."',
      'de/demo: "other.a" does not start with "demo."',
    ]);
  });
});
