// The gateway pages' catalogues, one pair of files per area (src/web/messages/<language>/<area>.json,
// keys prefixed with the area). Imported, not read from disk, so the compiled build carries them.
// A new area adds its two imports and its two entries here.
import deErrors from './de/errors.json' with { type: 'json' };
import dePage from './de/page.json' with { type: 'json' };
import deSignOut from './de/signOut.json' with { type: 'json' };
import enErrors from './en/errors.json' with { type: 'json' };
import enPage from './en/page.json' with { type: 'json' };
import enSignOut from './en/signOut.json' with { type: 'json' };

export interface PageCatalogue {
  language: string;
  area: string;
  messages: Record<string, string>;
}

export const PAGE_CATALOGUES: readonly PageCatalogue[] = [
  { language: 'en', area: 'page', messages: enPage },
  { language: 'de', area: 'page', messages: dePage },
  { language: 'en', area: 'errors', messages: enErrors },
  { language: 'de', area: 'errors', messages: deErrors },
  { language: 'en', area: 'signOut', messages: enSignOut },
  { language: 'de', area: 'signOut', messages: deSignOut },
];
