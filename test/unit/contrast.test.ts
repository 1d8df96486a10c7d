// WCAG 2.x relative luminance and contrast ratio (src/domain/contrast.ts) against
// known values: the formula's corner cases and the pairs accessibility tools quote.
import { describe, expect, it } from 'vitest';
import { contrastRatio, primaryColorContrast, relativeLuminance } from '../../src/domain/contrast.ts';
import { validateBranding } from '../../src/services/registry/branding.ts';
import { ApiError } from '../../src/errors/catalogue.ts';

describe('WCAG 2.x relative luminance', () => {
  it('is 0 for black, 1 for white, and the channel weights for the primaries', () => {
    expect(relativeLuminance('#000000')).toBe(0);
    expect(relativeLuminance('#ffffff')).toBeCloseTo(1, 10);
    expect(relativeLuminance('#ff0000')).toBeCloseTo(0.2126, 10);
    expect(relativeLuminance('#00ff00')).toBeCloseTo(0.7152, 10);
    expect(relativeLuminance('#0000ff')).toBeCloseTo(0.0722, 10);
  });
  it('uses the linear segment below the 0.03928 threshold (#0a0a0a: 10/255/12.92)', () => {
    expect(relativeLuminance('#0a0a0a')).toBeCloseTo(10 / 255 / 12.92, 10);
  });
  it('reads upper and lower case alike and refuses anything but #rrggbb', () => {
    expect(relativeLuminance('#2457D6')).toBe(relativeLuminance('#2457d6'));
    for (const bad of ['#fff', '2457d6', '#2457d6ff', 'red', '#gggggg']) expect(() => relativeLuminance(bad)).toThrow(TypeError);
  });
});

describe('WCAG 2.x contrast ratio', () => {
  it('gives the known ratios', () => {
    expect(contrastRatio('#000000', '#ffffff')).toBeCloseTo(21, 10);
    expect(contrastRatio('#ffffff', '#000000')).toBeCloseTo(21, 10); // order does not matter
    expect(contrastRatio('#2457d6', '#2457d6')).toBe(1);
    // The grey pair every contrast checker quotes: #777777 just fails AA on white, #767676 just passes.
    expect(contrastRatio('#777777', '#ffffff')).toBeCloseTo(4.48, 2);
    expect(contrastRatio('#767676', '#ffffff')).toBeCloseTo(4.54, 2);
    // Pure red on white: 3.998:1.
    expect(contrastRatio('#ff0000', '#ffffff')).toBeCloseTo(4.0, 2);
  });
});

describe('a primary colour against white button text and the page background #f5f6f9', () => {
  it('passes for the account center accent and dark colours', () => {
    for (const color of ['#2457d6', '#0b6e69', '#000000', '#5a2d82']) expect(primaryColorContrast(color).passes).toBe(true);
  });
  it('fails a light colour on both surfaces, and #767676, which passes on white but not on the page', () => {
    expect(primaryColorContrast('#ffcc00')).toMatchObject({ passes: false });
    const grey = primaryColorContrast('#767676');
    expect(grey.againstButtonText).toBeGreaterThanOrEqual(4.5);
    expect(grey.againstPage).toBeLessThan(4.5);
    expect(grey.passes).toBe(false);
  });
  it('is refused by the registry with reason INSUFFICIENT_CONTRAST naming both ratios', () => {
    let refusal: unknown;
    try {
      validateBranding({ primaryColor: '#ff0000', displayNames: {} });
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(ApiError);
    const { code, errors } = refusal as ApiError;
    expect(code).toBe('VALIDATION_FAILED');
    expect(errors).toEqual([expect.objectContaining({ pointer: '/body/primaryColor', reason: 'INSUFFICIENT_CONTRAST', message: expect.stringMatching(/4\.00:1.*3\.\d\d:1/) })]);
  });
  it('stores an accepted colour in lower case', () => {
    expect(validateBranding({ primaryColor: '#0B6E69', displayNames: { de: 'Hafen' } })).toEqual({ brandColor: '#0b6e69', displayNames: { de: 'Hafen' } });
  });
});
