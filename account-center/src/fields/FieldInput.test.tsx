import { describe, expect, it } from 'vitest';
import { useState } from 'react';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { FieldInput, type FieldDefinition, type FieldValue } from './FieldInput.tsx';

const base: Omit<FieldDefinition, 'fieldKey' | 'label' | 'fieldType'> = { required: false, options: [], validation: {}, uiConfig: {}, placeholder: null, description: null };

/** A field that keeps its value, as a form does; the latest value is reported. */
function Harness({ definition, initial, report }: { definition: FieldDefinition; initial: FieldValue; report: (value: FieldValue) => void }) {
  const [value, setValue] = useState<FieldValue>(initial);
  return <FieldInput definition={definition} value={value} onChange={(next) => { setValue(next); report(next); }} />;
}

function renderField(fieldType: FieldDefinition['fieldType'], extra: Partial<FieldDefinition> = {}, initial: FieldValue = null) {
  const values: FieldValue[] = [];
  render(<Harness definition={{ ...base, fieldKey: 'f', label: 'The field', fieldType, ...extra }} initial={initial} report={(value) => values.push(value)} />);
  return values;
}

describe('FieldInput', () => {
  it.each([
    ['TEXT', 'textbox', 'text'],
    ['EMAIL', 'textbox', 'email'],
    ['URL', 'textbox', 'url'],
    ['PHONE', 'textbox', 'tel'],
    ['NUMBER', 'spinbutton', 'number'],
  ] as const)('%s is an input of type %s', (fieldType, role, type) => {
    renderField(fieldType);
    const input = screen.getByRole(role, { name: 'The field' });
    expect(input.getAttribute('type')).toBe(type);
  });

  it.each([
    ['TEXT', { profileField: 'firstName' }, 'given-name'],
    ['TEXT', { profileField: 'lastName' }, 'family-name'],
    ['TEXT', { profileField: 'displayName' }, 'nickname'],
    ['DATE', { profileField: 'dateOfBirth' }, 'bday'],
    ['PHONE', { profileField: 'phone' }, 'tel'],
    ['PHONE', {}, 'tel'],
    ['EMAIL', {}, 'email'],
    ['URL', {}, 'url'],
    ['COUNTRY', {}, 'country-name'],
  ] as const)('%s %j says its purpose to the browser: autocomplete=%s (WCAG 1.3.5)', (fieldType, extra, token) => {
    renderField(fieldType, extra);
    expect(screen.getByLabelText('The field').getAttribute('autocomplete')).toBe(token);
  });

  it('a text or date field of its own (no profile property) claims no purpose', () => {
    renderField('TEXT');
    renderField('DATE', { fieldKey: 'g', label: 'Another field' });
    expect(screen.getByLabelText('The field').hasAttribute('autocomplete')).toBe(false);
    expect(screen.getByLabelText('Another field').hasAttribute('autocomplete')).toBe(false);
  });

  it('TEXTAREA is a multiline input; an emptied value is null', async () => {
    const values = renderField('TEXTAREA', {}, 'x');
    const box = screen.getByRole('textbox', { name: 'The field' });
    expect(box.tagName).toBe('TEXTAREA');
    await userEvent.clear(box);
    expect(values.at(-1)).toBeNull();
  });

  it('NUMBER gives numbers, never strings', async () => {
    const values = renderField('NUMBER');
    await userEvent.type(screen.getByRole('spinbutton', { name: 'The field' }), '42.5');
    expect(values.at(-1)).toBe(42.5);
  });

  it('BOOLEAN is one checkbox labelled by the field', async () => {
    const values = renderField('BOOLEAN');
    await userEvent.click(screen.getByRole('checkbox', { name: 'The field' }));
    expect(values.at(-1)).toBe(true);
  });

  it('SELECT offers the options by label and gives the value', async () => {
    const options = [{ value: 'a', label: 'Apple' }, { value: 'b', label: 'Banana' }];
    const single = renderField('SELECT', { options });
    await userEvent.selectOptions(screen.getByRole('combobox', { name: 'The field' }), 'Banana');
    expect(single.at(-1)).toBe('b');
  });

  it('MULTI_SELECT is a group of checkboxes under a legend; unticking all gives []', async () => {
    const values = renderField('MULTI_SELECT', { options: [{ value: 'a', label: 'Apple' }, { value: 'b', label: 'Banana' }] }, []);
    expect(screen.getByRole('group', { name: 'The field' })).toBeDefined();
    await userEvent.click(screen.getByRole('checkbox', { name: 'Apple' }));
    await userEvent.click(screen.getByRole('checkbox', { name: 'Banana' }));
    expect(values.at(-1)).toEqual(['a', 'b']);
    await userEvent.click(screen.getByRole('checkbox', { name: 'Apple' }));
    await userEvent.click(screen.getByRole('checkbox', { name: 'Banana' }));
    expect(values.at(-1)).toEqual([]);
  });

  it('COUNTRY searches names and submits the code; a name that is no country submits nothing and says so', async () => {
    const values = renderField('COUNTRY');
    const box = screen.getByRole('combobox', { name: 'The field' });
    await userEvent.type(box, 'Netherlands');
    expect(values.at(-1)).toBe('NL');
    await userEvent.clear(box);
    await userEvent.type(box, 'Atlantis');
    expect(values.at(-1)).toBeNull();
    expect(screen.getByText('Choose a country from the list.')).toBeDefined();
  });

  it('shows the stored code as its name', () => {
    renderField('COUNTRY', {}, 'GB');
    expect((screen.getByRole('combobox', { name: 'The field' }) as HTMLInputElement).value).toBe('United Kingdom');
  });

  it('COUNTRY tells onInputError while the text names no country, and null once it does', async () => {
    const problems: (string | null)[] = [];
    render(<FieldInput definition={{ ...base, fieldKey: 'c', label: 'Country', fieldType: 'COUNTRY' }} value={null} onChange={() => {}} onInputError={(message) => problems.push(message)} />);
    const box = screen.getByRole('combobox', { name: 'Country' });
    await userEvent.type(box, 'Atlantis');
    expect(problems.at(-1)).toBe('Choose a country from the list.');
    await userEvent.clear(box);
    expect(problems.at(-1)).toBeNull();
    await userEvent.type(box, 'Germany');
    expect(problems.at(-1)).toBeNull();
  });

  it('a checkbox group marks its boxes invalid and links its error', () => {
    render(<FieldInput definition={{ ...base, fieldKey: 'm', label: 'Interests', fieldType: 'MULTI_SELECT', required: true, options: [{ value: 'a', label: 'Apple' }] }} value={[]} onChange={() => {}} error="Choose at least one option." />);
    const group = screen.getByRole('group', { name: /Interests/ });
    const described = (group.getAttribute('aria-describedby') ?? '').split(' ').map((id) => document.getElementById(id)?.textContent);
    expect(described).toContain('Choose at least one option.');
    expect(screen.getByRole('checkbox', { name: 'Apple' }).getAttribute('aria-invalid')).toBe('true');
  });
});
