import { describe, expect, it } from 'vitest';
import { render, screen } from '@testing-library/react';
import { ErrorSummary } from './ErrorSummary.tsx';

describe('ErrorSummary', () => {
  it('is named by its own message, also when the page shows another one', () => {
    render(
      <>
        <ErrorSummary message="The password was not changed." />
        <ErrorSummary message="Check the details below." errors={[{ inputId: 'x', label: 'Phone', message: 'is not a number' }]} />
      </>,
    );
    const names = screen.getAllByRole('alert').map((alert) => document.getElementById(alert.getAttribute('aria-labelledby')!)?.textContent);
    expect(names).toEqual(['The password was not changed.', 'Check the details below.']);
    expect(screen.getByRole('alert', { name: 'Check the details below.' })).toBeDefined();
  });
});
