import { describe, expect, it } from 'vitest';
import { screen } from '@testing-library/react';
import { renderWithIntl } from '../test/renderWithIntl.tsx';
import { MarkdownText, safeHref } from './MarkdownText.tsx';
import { DocumentBody, languageToShow } from './documentText.tsx';

// Document texts come from data: Markdown to a safe subset, never HTML, links https only (issue 25).

describe('MarkdownText', () => {
  it('renders the subset: headings (one level, below the title), emphasis, lists, quotes, code', () => {
    const { container } = renderWithIntl(<MarkdownText markdown={'# Title\n\n## Part\n\nSome **bold** and *soft* words.\n\n- one\n- two\n\n> quoted\n\n`code`'} />);
    expect([...container.querySelectorAll('h4')].map((heading) => heading.textContent)).toEqual(['Title', 'Part']);
    expect(container.querySelector('h1, h2, h3')).toBeNull();
    expect(container.querySelector('strong')?.textContent).toBe('bold');
    expect(container.querySelectorAll('li')).toHaveLength(2);
    expect(container.querySelector('blockquote')?.textContent?.trim()).toBe('quoted');
  });

  it('never renders HTML from the text: raw HTML, images and event handlers are gone', () => {
    const { container } = renderWithIntl(<MarkdownText markdown={'Hello <b>bold</b> <script>alert(1)</script>\n\n<img src=x onerror="alert(1)">\n\n![picture](https://example.com/a.png)'} />);
    expect(container.querySelector('script, img, b, iframe')).toBeNull();
    expect(container.innerHTML).not.toMatch(/onerror|<script/);
    // An image is not part of the subset: it is left out (its address is never fetched).
    expect(container.innerHTML).not.toContain('example.com/a.png');
  });

  it('links open only https URLs, in a new tab without the opener; others are plain text', () => {
    renderWithIntl(<MarkdownText markdown={'[safe](https://example.com/terms) [script](javascript:alert(1)) [plain](http://example.com) [data](data:text/html,hi) [relative](/terms) [user](https://a:b@example.com/)'} />);
    const safe = screen.getByRole('link', { name: 'safe' });
    expect(safe.getAttribute('href')).toBe('https://example.com/terms');
    expect(safe.getAttribute('target')).toBe('_blank');
    expect(safe.getAttribute('rel')).toBe('noopener noreferrer');
    expect(screen.getAllByRole('link')).toHaveLength(1);
    for (const text of ['script', 'plain', 'data', 'relative', 'user']) expect(screen.getByText(text).tagName).toBe('SPAN');
  });

  it('safeHref accepts absolute https URLs only', () => {
    expect(safeHref('https://example.com/x')).toBe('https://example.com/x');
    expect(safeHref('HTTPS://EXAMPLE.com')).toBe('https://example.com/');
    for (const url of ['http://example.com', 'javascript:alert(1)', '//example.com', 'https://u:p@example.com', 'mailto:a@example.com', 'not a url']) expect(safeHref(url)).toBeNull();
  });
});

describe('DocumentBody and languageToShow', () => {
  it('a linked text is a link that opens it (https only); the language follows the account center, else the default', () => {
    renderWithIntl(<DocumentBody text={{ title: 'Terms', url: 'https://example.com/terms', sha256: 'a'.repeat(64) }} />);
    expect(screen.getByRole('link', { name: 'Read “Terms” (opens in a new tab)' }).getAttribute('href')).toBe('https://example.com/terms');
    const version = { defaultLanguage: 'en', texts: { en: { title: 'T', sha256: 'a'.repeat(64) }, 'de-CH': { title: 'T', sha256: 'b'.repeat(64) } } };
    expect(languageToShow(version, 'de')).toBe('de-CH');
    expect(languageToShow(version, 'fr')).toBe('en');
    expect(languageToShow(version, 'EN')).toBe('en');
  });
});
