import { DEFAULT_LANGUAGE, type Language } from './languages.ts';

export type Catalogue = Record<string, string>;

/**
 * Every area's catalogue, `messages/<language>/<area>.json`, gathered at build time: a new
 * area (a helper's new page) is a new pair of files and needs no change here.
 */
const files = import.meta.glob<Catalogue>('./messages/*/*.json', { eager: true, import: 'default' });

export interface CatalogueFile {
  language: string;
  area: string;
  messages: Catalogue;
}

/** The files the glob found, with the language and area their path names. */
export function catalogueFiles(found: Record<string, Catalogue> = files): CatalogueFile[] {
  return Object.entries(found).map(([path, messages]) => {
    const match = /\/messages\/([^/]+)\/([^/]+)\.json$/.exec(path);
    if (!match) throw new Error(`unexpected catalogue path ${path}`);
    return { language: match[1]!, area: match[2]!, messages };
  });
}

/** One flat catalogue per language, all areas merged (keys carry their area, so none collide). */
export function mergeCatalogues(found: readonly CatalogueFile[]): Record<string, Catalogue> {
  const merged: Record<string, Catalogue> = {};
  for (const file of found) Object.assign((merged[file.language] ??= {}), file.messages);
  return merged;
}

const merged = mergeCatalogues(catalogueFiles());

/**
 * The messages of one language over the English ones: a key not (yet) translated shows in
 * English rather than as its id. The completeness test keeps that from reaching a release.
 */
export function messagesFor(language: Language): Catalogue {
  return { ...merged[DEFAULT_LANGUAGE], ...merged[language] };
}
