// What a page needs of a platform's branding (issue 27). Below the error catalogue (which
// carries it on an ApiError for the error page) and the web pages (which render it), so the
// catalogue never imports the web layer (issue 34: that import closed an eleven-file circle).

/** What a page needs of a platform's branding (names resolved per page language at render). */
export interface PlatformPageBrand {
  displayName: string;
  displayNames: Record<string, string>;
  color: string | null;
  logoId: string | null;
  /** The platform's default language: the page's language when Accept-Language names none spoken here. */
  defaultLanguage: string | null;
}

/**
 * The name for a page in `languages` (most preferred first): the exact tag, then its primary
 * language (`de` for `de-AT`), for each language in turn; else the default displayName.
 * Tags compare case-insensitively (RFC 5646 §2.1.1).
 */
export function brandName(row: { displayName: string; displayNames?: Record<string, string> | null }, languages: readonly string[]): string {
  const names = new Map(Object.entries(row.displayNames ?? {}).map(([tag, name]) => [tag.toLowerCase(), name]));
  for (const language of languages) {
    const tag = language.toLowerCase();
    const name = names.get(tag) ?? names.get(tag.split('-')[0]!);
    if (name) return name;
  }
  return row.displayName;
}
