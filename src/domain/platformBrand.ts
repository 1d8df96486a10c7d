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
