// The gateway pages' catalogues, one pair of files per area (src/web/messages/<language>/<area>.json,
// keys prefixed with the area). Imported, not read from disk, so the compiled build carries them.
// A new area adds its two imports and its two entries here.
import dePage from './de/page.json' with { type: 'json' };
import enPage from './en/page.json' with { type: 'json' };

export interface PageCatalogue {
  language: string;
  area: string;
  messages: Record<string, string>;
}

export const PAGE_CATALOGUES: readonly PageCatalogue[] = [
  { language: 'en', area: 'page', messages: enPage },
  { language: 'de', area: 'page', messages: dePage },
];
