import Markdown, { type Components } from 'react-markdown';

// A document's text, rendered from Markdown to a safe subset of React elements (issue 25).
// react-markdown turns CommonMark into React elements, never into an HTML string, so nothing is
// ever set as innerHTML. On top of that:
// - `skipHtml`: raw HTML in the text is dropped, not interpreted (no rehype-raw);
// - `allowedElements`: headings, paragraphs, emphasis, lists, quotes, code, rules, links;
//   anything else (images, tables, …) is unwrapped to its text;
// - `urlTransform`: a link keeps its address only when it is an absolute https URL; any other
//   (javascript:, data:, http:, relative) renders as plain text, so a link opens only https.

const ALLOWED_ELEMENTS = ['h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'p', 'strong', 'em', 'del', 'ul', 'ol', 'li', 'blockquote', 'code', 'pre', 'hr', 'br', 'a'];

/** Absolute https URLs only (parsed, never matched as a string prefix). */
export function safeHref(url: string): string | null {
  if (!URL.canParse(url)) return null;
  const parsed = new URL(url);
  return parsed.protocol === 'https:' && parsed.username === '' && parsed.password === '' ? parsed.href : null;
}

const components: Components = {
  // Headings inside a document sit below the document's title (an h3 wherever it is shown), at
  // one level, so the page's outline never skips a level whatever the text uses.
  h1: ({ children }) => <h4>{children}</h4>,
  h2: ({ children }) => <h4>{children}</h4>,
  h3: ({ children }) => <h4>{children}</h4>,
  h4: ({ children }) => <h4>{children}</h4>,
  h5: ({ children }) => <h4>{children}</h4>,
  h6: ({ children }) => <h4>{children}</h4>,
  a: ({ href, children }) => {
    const target = href ? safeHref(href) : null;
    if (!target) return <span>{children}</span>;
    return <a href={target} target="_blank" rel="noopener noreferrer">{children}</a>;
  },
};

export function MarkdownText({ markdown }: { markdown: string }) {
  return (
    <div className="document-text">
      <Markdown skipHtml allowedElements={ALLOWED_ELEMENTS} unwrapDisallowed urlTransform={(url) => safeHref(url) ?? ''} components={components}>
        {markdown}
      </Markdown>
    </div>
  );
}
