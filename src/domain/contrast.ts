// Colour contrast as WCAG 2.x defines it (WCAG 2.2, "relative luminance" and "contrast ratio"
// in the glossary; success criterion 1.4.3 Contrast (Minimum), level AA: 4.5:1 for text).
// https://www.w3.org/TR/WCAG22/#dfn-relative-luminance
// https://www.w3.org/TR/WCAG22/#dfn-contrast-ratio

/** A colour as the contract spells it: `#rrggbb`. */
export const HEX_COLOR_PATTERN = /^#[0-9a-fA-F]{6}$/;

/** SC 1.4.3 level AA for normal text. */
export const AA_NORMAL_TEXT = 4.5;

/**
 * The surfaces a platform's primary colour meets on the pages it brands (the account center's
 * onboarding and the gateway's own pages, src/web/page.ts and account-center/src/styles.css):
 * it is the background of the primary button under white text (--accent-ink), and the colour
 * of links and focus outlines on the page's canvas (--canvas, the darker of the two page
 * backgrounds; the cards are white, against which any colour that passes here passes too).
 */
export const BUTTON_TEXT_COLOR = '#ffffff';
export const PAGE_BACKGROUND_COLOR = '#f5f6f9';

/** An 8-bit sRGB channel linearised (the WCAG formula; 0.03928 is the threshold WCAG 2.x states). */
function linear(channel8bit: number): number {
  const c = channel8bit / 255;
  return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
}

/** L = 0.2126 R + 0.7152 G + 0.0722 B of the linearised channels, 0 (black) to 1 (white). */
export function relativeLuminance(hex: string): number {
  if (!HEX_COLOR_PATTERN.test(hex)) throw new TypeError(`not a #rrggbb colour: ${hex}`);
  const value = Number.parseInt(hex.slice(1), 16);
  const r = (value >> 16) & 0xff;
  const g = (value >> 8) & 0xff;
  const b = value & 0xff;
  return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
}

/** (L1 + 0.05) / (L2 + 0.05), L1 the lighter: 1 (same colour) to 21 (black on white). */
export function contrastRatio(a: string, b: string): number {
  const [lighter, darker] = [relativeLuminance(a), relativeLuminance(b)].sort((x, y) => y - x) as [number, number];
  return (lighter + 0.05) / (darker + 0.05);
}

/** How a primary colour fares against the surfaces it meets; `passes` when both reach AA. */
export function primaryColorContrast(hex: string): { againstButtonText: number; againstPage: number; passes: boolean } {
  const againstButtonText = contrastRatio(hex, BUTTON_TEXT_COLOR);
  const againstPage = contrastRatio(hex, PAGE_BACKGROUND_COLOR);
  return { againstButtonText, againstPage, passes: againstButtonText >= AA_NORMAL_TEXT && againstPage >= AA_NORMAL_TEXT };
}
