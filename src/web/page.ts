// The frame of every HTML page the gateway serves itself (error pages, the sign-out
// confirmation): the account center's look (account-center/src/styles.css: its colours,
// system font stack, top bar and card), so a person moving between them stays in one product.
// Inline styles only: the strict CSP (src/app.ts) allows `style-src 'unsafe-inline'` and
// nothing else, so nothing loads from anywhere, and there is no script.

import { pageIntl, type PageLanguage } from './i18n.ts';
import { brandLabel, brandLogoHtml, brandStyle, type PlatformPageBrand } from './platformBrand.ts';

export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

/** The account center's variables and the few rules these pages use. Kept in step by hand: a handful of values. */
const STYLE = `:root{--ink:#1d2230;--ink-soft:#4a5163;--line:#d5d9e2;--surface:#fff;--canvas:#f5f6f9;--accent:#2457d6;--accent-ink:#fff;--radius:8px;
font-family:system-ui,-apple-system,'Segoe UI',Roboto,'Helvetica Neue',Arial,sans-serif;font-size:16px;line-height:1.5;color:var(--ink);background:var(--canvas)}
*{box-sizing:border-box}body{margin:0}h1{font-size:1.75rem;line-height:1.25;margin:0 0 .75rem}p{margin:0 0 .75rem}a{color:var(--accent)}
:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
.topbar{padding:.75rem max(1rem,calc((100% - 64rem)/2 + 1rem));background:var(--surface);border-bottom:1px solid var(--line)}
.brand{font-weight:700;font-size:1.1rem}
main{max-width:40rem;margin:0 auto;padding:2rem 1rem 4rem}
.card{background:var(--surface);border:1px solid var(--line);border-radius:var(--radius);padding:1.5rem}
.lead{color:var(--ink-soft);font-size:1.05rem}
.actions{display:flex;flex-wrap:wrap;gap:.75rem;margin-top:1.5rem}
.button{display:inline-flex;align-items:center;justify-content:center;min-height:2.5rem;padding:.5rem 1rem;border-radius:var(--radius);
border:1px solid var(--accent);background:var(--accent);color:var(--accent-ink);font:inherit;font-weight:600;text-decoration:none;cursor:pointer}
.button-secondary{background:var(--surface);color:var(--accent)}
.reference{margin-top:1.5rem;color:var(--ink-soft);font-size:.85rem;overflow-wrap:anywhere}`;

/** What another server's pages change in the frame (the example BFF: its own name in the top bar, a few rules of its own). */
export interface PageFrame {
  /** The top bar's name (plain text); default "Sign-in", the gateway's (in `language`). */
  brand?: string;
  /** The page's language (its `lang`); default English. */
  language?: PageLanguage;
  /** More CSS after the shared rules. */
  style?: string;
  /** The platform whose login this page is about: its name (instead of `brand`), logo and colour (src/web/platformBrand.ts). */
  platform?: PlatformPageBrand | undefined;
  /** The page's languages, most preferred first: which of the platform's names it shows. */
  languages?: readonly string[];
}

/** A whole page: `title` (already plain text) and `body` (HTML, escaped by the caller) inside the card. */
export function htmlPage(title: string, body: string, frame: PageFrame = {}): string {
  return `<!doctype html>
<html lang="${frame.language ?? 'en'}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}${brandStyle(frame.platform)}${frame.style ?? ''}</style>
</head><body>
<header class="topbar"><span class="brand">${brandLogoHtml(frame.platform)}${escapeHtml(frame.platform ? brandLabel(frame.platform, frame.languages ?? []) : (frame.brand ?? pageIntl(frame.language ?? 'en').formatMessage({ id: 'page.brand' })))}</span></header>
<main><div class="card">
${body}
</div></main>
</body></html>
`;
}
