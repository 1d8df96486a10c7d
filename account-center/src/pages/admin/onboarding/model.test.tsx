import { describe, expect, it } from 'vitest';
import { allowedTypes, draftOf, emptyDraft, nextSortOrder, newOption, withProfileProperty, withSource, withType } from './model.ts';
import { patchBody, previewDefinition, settingsOf } from './settings.ts';
import { movePlan } from './reordering.ts';
import { impactSentence } from './impact.ts';
import { definition } from './testSupport.tsx';
import { englishIntl, intlFor } from '../../../i18n/useIntl.ts';

const en = englishIntl();

describe('schema editor model', () => {
  it('keeps only what applies to the type: options for SELECT, lengths for text, a range for NUMBER', () => {
    const draft = { ...emptyDraft(10), label: 'Size', minLength: '2', maxLength: '20', min: '1', max: '9', options: [newOption('s', 'Small')] };
    expect(settingsOf(en, draft).settings).toMatchObject({ fieldType: 'TEXT', options: [], validation: { minLength: 2, maxLength: 20 } });
    expect(settingsOf(en, { ...draft, fieldType: 'NUMBER' }).settings).toMatchObject({ options: [], validation: { min: 1, max: 9 } });
    expect(settingsOf(en, { ...draft, fieldType: 'SELECT' }).settings).toMatchObject({ options: [{ value: 's', label: 'Small' }], validation: {} });
    expect(settingsOf(en, { ...draft, fieldType: 'BOOLEAN' }).settings).toMatchObject({ options: [], validation: {} });
  });

  it('refuses numbers it cannot read, by pointer; empty texts are not set', () => {
    const { settings, errors } = settingsOf(en, { ...emptyDraft(10), sortOrder: '1.5', fieldType: 'NUMBER', min: 'abc', max: '2.5e1' });
    expect([...errors.keys()]).toEqual(['sortOrder', 'validation/min']);
    expect(settings.validation).toEqual({ max: 25 });
    expect(settings).toMatchObject({ placeholder: null, description: null, uiConfig: {}, profileField: null });
  });

  it('a profile property sets the type it needs, and the type then offers only that one', () => {
    const draft = withProfileProperty(withSource(emptyDraft(10), 'PROFILE_FIELD'), 'dateOfBirth');
    expect(draft).toMatchObject({ source: 'PROFILE_FIELD', profileField: 'dateOfBirth', fieldType: 'DATE' });
    expect(allowedTypes(draft).map((entry) => entry.type)).toEqual(['DATE']);
    expect(withSource(draft, 'CUSTOM_FIELD').profileField).toBeNull();
    expect(allowedTypes(withSource(draft, 'CUSTOM_FIELD'))).toHaveLength(11);
  });

  it('a type with options starts with one empty option row', () => {
    expect(withType(emptyDraft(10), 'MULTI_SELECT').options).toHaveLength(1);
  });

  it('an edit sends only the properties that differ (key order ignored)', () => {
    const stored = definition({ fieldKey: 'size', label: 'Size', fieldType: 'SELECT', options: [{ value: 's', label: 'Small' }], uiConfig: { helpText: 'Hi', width: 'half' } });
    const draft = draftOf(stored);
    expect(patchBody(stored, settingsOf(en, draft).settings)).toEqual({});
    expect(patchBody(stored, settingsOf(en, { ...draft, label: 'Shirt size', required: true }).settings)).toEqual({ label: 'Shirt size', required: true });
  });

  it('the preview shows each filled option once', () => {
    const draft = { ...emptyDraft(10), fieldType: 'SELECT' as const, options: [newOption('a', 'A'), newOption('', 'Blank'), newOption('a', 'Again'), newOption('b', '')] };
    expect(previewDefinition(en, draft, settingsOf(en, draft).settings).options).toEqual([{ value: 'a', label: 'A' }, { value: 'b', label: 'b' }]);
  });

  it('a new field goes after the last active one', () => {
    expect(nextSortOrder([])).toBe(10);
    expect(nextSortOrder([definition({ fieldKey: 'a', sortOrder: 25 }), definition({ fieldKey: 'b', sortOrder: 90, archived: true })])).toBe(30);
  });

  describe('moving a field', () => {
    const fields = [definition({ fieldKey: 'a', sortOrder: 10 }), definition({ fieldKey: 'b', sortOrder: 20 }), definition({ fieldKey: 'c', sortOrder: 30 })];
    it('takes one PATCH when a whole number fits between the new neighbours', () => {
      expect(movePlan(fields, 2, -1)).toEqual([{ fieldKey: 'c', sortOrder: 15 }]);
      expect(movePlan(fields, 1, -1)).toEqual([{ fieldKey: 'b', sortOrder: 0 }]);
      expect(movePlan(fields, 1, 1)).toEqual([{ fieldKey: 'b', sortOrder: 40 }]);
      expect(movePlan(fields, 0, -1)).toEqual([]);
      expect(movePlan(fields, 2, 1)).toEqual([]);
    });
    it('renumbers 10, 20, 30… when nothing fits (ties are never relied on)', () => {
      const tied = fields.map((field) => ({ ...field, sortOrder: 0 }));
      expect(movePlan(tied, 2, -1)).toEqual([{ fieldKey: 'a', sortOrder: 10 }, { fieldKey: 'c', sortOrder: 20 }, { fieldKey: 'b', sortOrder: 30 }]);
      const close = [definition({ fieldKey: 'a', sortOrder: 1 }), definition({ fieldKey: 'b', sortOrder: 2 }), definition({ fieldKey: 'c', sortOrder: 3 })];
      expect(movePlan(close, 2, -1)).toEqual([{ fieldKey: 'a', sortOrder: 10 }, { fieldKey: 'c', sortOrder: 20 }, { fieldKey: 'b', sortOrder: 30 }]);
    });
  });

  it('says the impact in words', () => {
    expect(impactSentence(en, { changed: true, reopenedUsers: 1, requirementVersion: 4 })).toBe('1 person who completed onboarding will be asked again; the requirement version becomes 4.');
    expect(impactSentence(en, { changed: true, reopenedUsers: 12, requirementVersion: 4 })).toBe('12 people who completed onboarding will be asked again; the requirement version becomes 4.');
    expect(impactSentence(en, { changed: true, reopenedUsers: 0, requirementVersion: 4 }, 3)).toBe('Nobody who completed onboarding will be asked again; the requirement version becomes 6.');
    expect(impactSentence(en, { changed: false, reopenedUsers: 0, requirementVersion: 3 })).toBe('This change changes nothing.');
    // German: the plural and the verb agree with the number
    const de = intlFor({ language: 'de', locale: 'de' });
    expect(impactSentence(de, { changed: true, reopenedUsers: 1, requirementVersion: 4 })).toBe('1 Person, die das Onboarding abgeschlossen hat, wird erneut gefragt; die Anforderungsversion wird 4.');
    expect(impactSentence(de, { changed: true, reopenedUsers: 1200, requirementVersion: 4 })).toBe('1.200 Personen, die das Onboarding abgeschlossen haben, werden erneut gefragt; die Anforderungsversion wird 4.');
  });
});
