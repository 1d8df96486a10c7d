import { describe, expect, it } from 'vitest';
import { render, screen } from '@testing-library/react';
import { Field } from './Field.tsx';

describe('Field', () => {
  it('labels its input, marks it required, and links the error and hints to it', () => {
    render(
      <Field label="Company" required description="Your employer." help="As on your contract." error="Enter your company.">
        {({ id, describedBy, invalid }) => <input id={id} type="text" aria-describedby={describedBy} aria-invalid={invalid} />}
      </Field>,
    );
    const input = screen.getByLabelText(/Company/);
    expect(screen.getByText('(required)').className).toBe('visually-hidden');
    const described = (input.getAttribute('aria-describedby') ?? '').split(' ').map((id) => document.getElementById(id)?.textContent);
    expect(described).toEqual(['Enter your company.', 'Your employer.', 'As on your contract.']);
    expect(input.getAttribute('aria-invalid')).toBe('true');
  });

  it('renders texts as text, never as HTML', () => {
    render(
      <Field label="<b>Bold</b>" help={'<img src=x onerror="alert(1)">'}>
        {({ id }) => <input id={id} />}
      </Field>,
    );
    expect(screen.getByText('<img src=x onerror="alert(1)">')).toBeDefined();
    expect(document.querySelector('img')).toBeNull();
    expect(document.querySelector('b')).toBeNull();
  });
});
