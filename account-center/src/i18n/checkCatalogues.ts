// The rules every message catalogue keeps, the account center's and the gateway's own pages'
// alike (both tests call this): a key in one language is in all, keys carry their area's
// prefix, every message parses as ICU MessageFormat, and a translation uses the same
// arguments as its source (a German text that dropped `{count}` would show a wrong number).
import { parse, TYPE, type MessageFormatElement } from '@formatjs/icu-messageformat-parser';

export interface CatalogueUnderTest {
  language: string;
  area: string;
  messages: Record<string, unknown>;
}

/** Every problem found, one line each; empty when the catalogues are complete and sound. */
export function catalogueProblems(files: readonly CatalogueUnderTest[], languages: readonly string[], source: string): string[] {
  const problems: string[] = [];
  const byArea = new Map<string, Map<string, Record<string, unknown>>>();
  for (const file of files) {
    if (!languages.includes(file.language)) problems.push(`${file.language}/${file.area}: not one of the languages ${languages.join(', ')}`);
    const area = byArea.get(file.area) ?? new Map<string, Record<string, unknown>>();
    area.set(file.language, file.messages);
    byArea.set(file.area, area);
  }
  for (const [area, perLanguage] of byArea) {
    const sourceMessages = perLanguage.get(source) ?? {};
    for (const language of languages) {
      const messages = perLanguage.get(language);
      if (!messages) {
        problems.push(`${language}/${area}: the file is missing`);
        continue;
      }
      for (const [key, message] of Object.entries(messages)) {
        if (!key.startsWith(`${area}.`)) problems.push(`${language}/${area}: "${key}" does not start with "${area}."`);
        if (typeof message !== 'string' || message.trim() === '') {
          problems.push(`${language}/${area}: "${key}" is not a non-empty string`);
          continue;
        }
        const argumentsUsed = argumentsOf(message);
        if (argumentsUsed instanceof Error) {
          problems.push(`${language}/${area}: "${key}" is not ICU MessageFormat (${argumentsUsed.message})`);
          continue;
        }
        const sourceMessage = sourceMessages[key];
        if (language !== source && typeof sourceMessage === 'string') {
          const sourceArguments = argumentsOf(sourceMessage);
          if (!(sourceArguments instanceof Error) && [...sourceArguments].sort().join() !== [...argumentsUsed].sort().join()) {
            problems.push(`${language}/${area}: "${key}" uses {${[...argumentsUsed].join(', ')}}, ${source} uses {${[...sourceArguments].join(', ')}}`);
          }
        }
      }
      for (const other of languages) {
        for (const key of Object.keys(perLanguage.get(other) ?? {})) {
          if (!(key in messages)) problems.push(`${language}/${area}: "${key}" is missing (it is in ${other})`);
        }
      }
    }
  }
  return problems;
}

/** The argument names a message uses (rich-text tags included), or the parse error. */
function argumentsOf(message: string): Set<string> | Error {
  try {
    const names = new Set<string>();
    collect(parse(message), names);
    return names;
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}

function collect(elements: readonly MessageFormatElement[], names: Set<string>): void {
  for (const element of elements) {
    if (element.type === TYPE.literal || element.type === TYPE.pound) continue;
    names.add(element.value);
    if (element.type === TYPE.tag) collect(element.children, names);
    if (element.type === TYPE.plural || element.type === TYPE.select) {
      for (const option of Object.values(element.options)) collect(option.value, names);
    }
  }
}
