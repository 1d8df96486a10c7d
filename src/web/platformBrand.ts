// A platform's face on the gateway's own pages (issue 27): the error pages of its logins show
// its name and logo in the top bar and use its colour for the primary action. Nothing of it can
// become markup or load from elsewhere: the name is escaped text, the colour is re-checked as
// #rrggbb here (the registry stored only a checked one) and goes into the page's own <style>
// as a CSS custom property, and the logo is a path on this gateway (img-src 'self' of the CSP).
import { HEX_COLOR_PATTERN } from '../domain/contrast.ts';
import { brandName, type PlatformPageBrand } from '../domain/platformBrand.ts';

export type { PlatformPageBrand };

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The brand of a registry row (already read by the statement that needed the platform: no query more). */
export function pageBrandOf(platform: {
  displayName: string;
  displayNames?: Record<string, string> | null;
  brandColor?: string | null;
  logoId?: string | null;
  defaultLanguage?: string | null;
}): PlatformPageBrand {
  return {
    displayName: platform.displayName,
    displayNames: platform.displayNames ?? {},
    color: platform.brandColor ?? null,
    logoId: platform.logoId ?? null,
    defaultLanguage: platform.defaultLanguage ?? null,
  };
}

/** The top bar's name for the page's languages (most preferred first). */
export function brandLabel(brand: PlatformPageBrand, languages: readonly string[]): string {
  return brandName(brand, languages);
}

/** CSS after the shared rules: the accent (button, links, focus) in the platform's colour, and the logo's size. */
export function brandStyle(brand: PlatformPageBrand | undefined): string {
  if (!brand) return '';
  const accent = brand.color && HEX_COLOR_PATTERN.test(brand.color) ? `:root{--accent:${brand.color}}` : '';
  return `${accent}.brand{display:inline-flex;align-items:center;gap:.5rem}.brand-logo{height:2rem;width:auto;max-width:8rem;object-fit:contain}`;
}

/** The logo's img (decorative: the name beside it says the same), or nothing. Same origin, a checked id. */
export function brandLogoHtml(brand: PlatformPageBrand | undefined): string {
  if (!brand?.logoId || !UUID_PATTERN.test(brand.logoId)) return '';
  return `<img class="brand-logo" src="/v1/platform-logos/${brand.logoId}" alt="">`;
}
