import { useIntl } from 'react-intl';
import type { Schemas } from '../api.ts';
import { MarkdownText, safeHref } from './MarkdownText.tsx';

export type DocumentVersion = Schemas['DocumentVersion'];
export type DocumentText = Schemas['DocumentText'];

/**
 * The language to show a version in: the account center's language when the version has it
 * (exactly, else by its primary subtag), else the version's default language.
 */
export function languageToShow(version: Pick<DocumentVersion, 'texts' | 'defaultLanguage'>, locale: string): string {
  const tags = Object.keys(version.texts);
  const wanted = locale.toLowerCase();
  return (
    tags.find((tag) => tag.toLowerCase() === wanted)
    ?? tags.find((tag) => tag.toLowerCase().split('-')[0] === wanted.split('-')[0])
    ?? version.defaultLanguage
  );
}

/** A text as shown: Markdown rendered safely, or a link that opens the published text (https only). */
export function DocumentBody({ text }: { text: DocumentText }) {
  const intl = useIntl();
  if (text.markdown !== undefined) return <MarkdownText markdown={text.markdown} />;
  const href = text.url ? safeHref(text.url) : null;
  if (!href) return null;
  return (
    <p className="document-link">
      <a href={href} target="_blank" rel="noopener noreferrer">
        {intl.formatMessage({ id: 'agreements.document.openLink' }, { title: text.title })}
      </a>
    </p>
  );
}
