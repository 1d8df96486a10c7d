import express, { Router } from 'express';
// The path helper alone: the package's main module also loads the UI's browser bundles into
// this process (+25 MB of RSS, for files that are only ever served from disk).
import getAbsoluteFSPath from 'swagger-ui-dist/absolute-path.js';
import type { OpenAPIV3_1 } from 'openapi-types';
import { loadContract } from '../contract.ts';
import { SERVICE_VERSION } from '../version.ts';

/**
 * The files of swagger-ui-dist the page loads, and nothing else: the package also ships
 * a stock index.html (its initializer points the UI at an outside demo contract),
 * oauth2-redirect.html (an OAuth callback page) and other bundles and source maps.
 */
const UI_ASSETS: ReadonlySet<string> = new Set(['/swagger-ui-bundle.js', '/swagger-ui.css', '/favicon-32x32.png', '/favicon-16x16.png']);

/**
 * The docs page's policy (replaces the default one set in app.ts): scripts, styles and
 * requests only from the gateway. Swagger UI sets inline styles and draws icons from
 * data: URLs; the page itself has no inline script (init.js is a file for that reason).
 */
const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "object-src 'none'",
].join('; ');

/** The paths docsRouter serves (everything else never enters it). */
export function isDocsPath(path: string): boolean {
  return path === '/openapi.json' || path === '/docs' || path.startsWith('/docs/');
}

/** Where the docs page reads its copy of the contract, and the full introduction it links to. */
export const DOCS_CONTRACT_PATH = '/docs/openapi.json';
export const DOCS_INTRODUCTION_PATH = '/docs/introduction';

/**
 * The contract as the docs page shows it. Two differences from /openapi.json, both for the
 * person reading /docs: (1) `info.description` (pages of introduction) is cut to its first
 * paragraph and a link to the whole text, so the first operation is on the first screen;
 * (2) the server is `/`, which Swagger UI resolves against the page's own address, so
 * "Try it out" calls the origin the page was opened at (localhost or 127.0.0.1 alike: a
 * cross-origin call would be refused by CORS and the cookie would not match). Generated
 * clients read /openapi.json, whose server stays PUBLIC_BASE_URL.
 */
export function docsContract(contract: OpenAPIV3_1.Document): OpenAPIV3_1.Document {
  const full = contract.info.description ?? '';
  const firstParagraph = full.split(/\n\s*\n/, 1)[0]!.trim();
  return {
    ...contract,
    info: { ...contract.info, version: SERVICE_VERSION, description: `${firstParagraph}\n\n[Read the full introduction](${DOCS_INTRODUCTION_PATH}): the login flow, credentials, errors and versioning.` },
    servers: [{ url: '/', description: 'This gateway, at the address this page was opened at' }],
  };
}

/**
 * `/openapi.json` (the contract as JSON) and `/docs` (Swagger UI). The UI's
 * assets come from the swagger-ui-dist package, so the page works offline.
 */
export function docsRouter(publicBaseUrl: string): Router {
  const router = Router();
  // As served, the contract names this very instance as its server (so "Try it out" in /docs
  // calls it) and the running build's version.
  // Only the text is kept: the document parsed for it is garbage once this returns.
  const contract = loadContract();
  const json = JSON.stringify({
    ...contract,
    info: { ...contract.info, version: SERVICE_VERSION },
    servers: [{ url: publicBaseUrl, description: 'This gateway' }],
  });
  const docsJson = JSON.stringify(docsContract(contract));
  const introduction = contract.info.description ?? '';

  router.get('/openapi.json', (_req, res) => {
    res.type('application/json').set('Cache-Control', 'no-cache').send(json);
  });

  router.get(DOCS_CONTRACT_PATH, (_req, res) => {
    res.type('application/json').set('Cache-Control', 'no-cache').send(docsJson);
  });
  // Markdown, shown as plain text: a browser displays it rather than downloading it.
  router.get(DOCS_INTRODUCTION_PATH, (_req, res) => {
    res.type('text/plain; charset=utf-8').set('Cache-Control', 'no-cache').send(introduction);
  });

  router.get('/docs', (_req, res) => {
    res.type('text/html').set('Content-Security-Policy', DOCS_CONTENT_SECURITY_POLICY).send(PAGE);
  });
  router.get('/docs/init.js', (_req, res) => {
    res.type('application/javascript').send(INIT);
  });
  // Anything else under /docs falls through to the dispatcher's 404 NOT_FOUND.
  const serveAsset = express.static(getAbsoluteFSPath(), { index: false, redirect: false, fallthrough: true, maxAge: '1h' });
  router.use('/docs', (req, res, next) => (UI_ASSETS.has(req.path) ? serveAsset(req, res, next) : next()));
  return router;
}

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Authentication gateway API</title>
  <link rel="stylesheet" href="/docs/swagger-ui.css">
  <link rel="icon" type="image/png" sizes="32x32" href="/docs/favicon-32x32.png">
  <link rel="icon" type="image/png" sizes="16x16" href="/docs/favicon-16x16.png">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/swagger-ui-bundle.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>
`;

const INIT = `window.ui = SwaggerUIBundle({
  url: '/docs/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  withCredentials: true,
  defaultModelsExpandDepth: 0,
});
`;
