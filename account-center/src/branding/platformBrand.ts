import type { Schemas } from '../api.ts';
import { HEX_COLOR_PATTERN } from '../../../src/domain/contrast.ts';
import { brandName } from '../../../src/domain/platformBrand.ts';

export type PlatformBranding = Schemas['PlatformBranding'];

/** What the frame shows: the name (already picked for the page's language), the logo and the colour. */
export interface BrandLook {
  name: string;
  logoUrl: string | null;
  primaryColor: string | null;
}

/**
 * The platform's name for a page in `locale`: the exact tag, then its primary language
 * (`de` for `de-AT`), else the default display name; the gateway's own rule for its pages.
 */
export function brandNameFor(branding: Pick<PlatformBranding, 'displayName' | 'displayNames'>, locale: string): string {
  return brandName(branding, [locale]);
}

/**
 * The look of a platform's branding on this page. Only what cannot inject or load from elsewhere
 * passes: a colour written #rrggbb (it becomes a CSS custom property through React, never
 * markup), and a logo URL on the gateway's own origin (the one the account center already loads
 * avatars from, and its CSP allows).
 */
export function brandLook(branding: PlatformBranding, locale: string, gatewayOrigin: string): BrandLook {
  return {
    name: brandNameFor(branding, locale),
    logoUrl: branding.logoUrl && sameOrigin(branding.logoUrl, gatewayOrigin) ? branding.logoUrl : null,
    primaryColor: branding.primaryColor && HEX_COLOR_PATTERN.test(branding.primaryColor) ? branding.primaryColor : null,
  };
}

function sameOrigin(url: string, origin: string): boolean {
  try {
    return new URL(url).origin === new URL(origin).origin;
  } catch {
    return false;
  }
}
