// The onboarding steps' frame (issue 27): the platform's name in the page's language, its logo
// only from the gateway's origin, its colour only as a checked #rrggbb custom property, and the
// account center's own look when there is no branding.
import { describe, expect, it } from 'vitest';
import { screen } from '@testing-library/react';
import { renderWithIntl } from '../test/renderWithIntl.tsx';
import { PlatformBrandFrame, usePlatformBrand } from './PlatformBrandFrame.tsx';
import { brandLook, brandNameFor, type PlatformBranding } from './platformBrand.ts';

const GATEWAY = 'https://auth.example.test';
const BRANDING: PlatformBranding = {
  platformKey: 'HARBOUR',
  displayName: 'Harbour Logistics',
  displayNames: { de: 'Hafen Logistik', 'pt-BR': 'Logística do Porto' },
  primaryColor: '#0b6e69',
  logoUrl: `${GATEWAY}/v1/platform-logos/3f1c2a9e-6b7d-4e8f-9a0b-1c2d3e4f5a6b`,
};

describe('a platform’s name for the page’s language', () => {
  it('takes the exact tag, then the primary language, else the default', () => {
    expect(brandNameFor(BRANDING, 'pt-BR')).toBe('Logística do Porto');
    expect(brandNameFor(BRANDING, 'de-AT')).toBe('Hafen Logistik');
    expect(brandNameFor(BRANDING, 'DE')).toBe('Hafen Logistik');
    expect(brandNameFor(BRANDING, 'en')).toBe('Harbour Logistics');
  });
});

describe('brandLook keeps only what cannot inject or load from elsewhere', () => {
  it('drops a logo on another origin and a colour that is not #rrggbb', () => {
    const hostile = { ...BRANDING, logoUrl: 'https://evil.test/logo.png', primaryColor: 'red;background:url(//evil.test/x)' };
    expect(brandLook(hostile, 'en', GATEWAY)).toEqual({ name: 'Harbour Logistics', logoUrl: null, primaryColor: null });
    expect(brandLook({ ...BRANDING, logoUrl: 'javascript:alert(1)' }, 'en', GATEWAY).logoUrl).toBeNull();
    expect(brandLook(BRANDING, 'de', GATEWAY)).toEqual({ name: 'Hafen Logistik', logoUrl: BRANDING.logoUrl, primaryColor: '#0b6e69' });
  });
});

describe('PlatformBrandFrame', () => {
  it('shows the name, the logo (decorative) and sets the colour as --accent for its subtree', () => {
    const { container } = renderWithIntl(
      <PlatformBrandFrame look={brandLook(BRANDING, 'de', GATEWAY)}><button type="button">Weiter</button></PlatformBrandFrame>,
      { language: 'de' },
    );
    expect(screen.getByText('Hafen Logistik')).toBeTruthy();
    expect(screen.getByText(/Anmeldung bei/)).toBeTruthy();
    const frame = container.querySelector('.platform-frame-branded') as HTMLElement;
    expect(frame.style.getPropertyValue('--accent')).toBe('#0b6e69');
    const logo = container.querySelector('img') as HTMLImageElement;
    expect(logo.getAttribute('src')).toBe(BRANDING.logoUrl);
    expect(logo.getAttribute('alt')).toBe('');
    expect(screen.getByRole('button', { name: 'Weiter' })).toBeTruthy();
  });

  it('renders a name with markup as text', () => {
    const look = brandLook({ ...BRANDING, displayNames: { en: '<img src=x onerror=alert(1)>' } }, 'en', GATEWAY);
    const { container } = renderWithIntl(<PlatformBrandFrame look={look}><p>step</p></PlatformBrandFrame>);
    expect(screen.getByText('<img src=x onerror=alert(1)>')).toBeTruthy();
    expect(container.querySelectorAll('img')).toHaveLength(1);
  });

  it('without branding, the step in the account center’s own look', () => {
    const { container } = renderWithIntl(<PlatformBrandFrame look={null}><p>step</p></PlatformBrandFrame>);
    expect(container.querySelector('.platform-frame-branded')).toBeNull();
    expect(container.querySelector('img')).toBeNull();
    expect(screen.getByText('step')).toBeTruthy();
  });

  it('tells a step inside it the platform’s name in the page’s language (usePlatformBrand)', () => {
    function StepHeading() {
      return <h1>{usePlatformBrand()?.name ?? 'no brand'}</h1>;
    }
    renderWithIntl(<PlatformBrandFrame look={brandLook(BRANDING, 'de-AT', GATEWAY)}><StepHeading /></PlatformBrandFrame>, { language: 'de' });
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Hafen Logistik');
  });
});
