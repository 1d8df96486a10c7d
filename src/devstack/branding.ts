import type { Db } from '../db/knex.ts';
import { findPlatformByKey } from '../services/registry/platformsRepository.ts';
import { DEVSTACK_ACTOR } from '../services/audit/audit.ts';
import { setBranding, uploadLogo } from '../services/registry/index.ts';

/** What the dev stack gives a demo platform to show (issue 27): a colour that passes WCAG AA, a name per language, a logo. */
export interface DemoBranding {
  primaryColor: string;
  displayNames: Record<string, string>;
  /** The logo's two colours: a rounded square with a ring, drawn at seed time. */
  logo: { fill: string; ring: string };
}

/**
 * Brands a demo platform once: only while it has no branding at all, so what an administrator
 * sets (or clears and sets again) in the editor is kept across restarts. The logo is an SVG of
 * shapes only, rasterised here by sharp into a PNG and uploaded through the same checked pipeline
 * as any logo (no file is committed, no font is needed).
 */
export async function seedDemoBranding(db: Db, publicBaseUrl: string, platformKey: string, branding: DemoBranding): Promise<void> {
  const platform = await findPlatformByKey(db, platformKey);
  if (!platform || platform.brandColor !== null || platform.logoId !== null || Object.keys(platform.displayNames).length > 0) return;
  const ctx = { db, publicBaseUrl };
  await setBranding(ctx, platformKey, { primaryColor: branding.primaryColor, displayNames: branding.displayNames }, DEVSTACK_ACTOR);
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="128" height="128" viewBox="0 0 128 128">
<rect x="4" y="4" width="120" height="120" rx="28" fill="${branding.logo.fill}"/>
<circle cx="64" cy="64" r="34" fill="none" stroke="${branding.logo.ring}" stroke-width="14"/>
<circle cx="64" cy="64" r="10" fill="${branding.logo.ring}"/></svg>`;
  const sharp = (await import('sharp')).default;
  const png = await sharp(Buffer.from(svg)).png().toBuffer();
  await uploadLogo(ctx, platformKey, png, 'image/png', DEVSTACK_ACTOR);
}
