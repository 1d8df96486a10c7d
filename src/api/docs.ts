import express, { Router } from 'express';
// The path helper alone: the package's main module also loads the UI's browser bundles into
// this process (+25 MB of RSS, for files that are only ever served from disk).
import getAbsoluteFSPath from 'swagger-ui-dist/absolute-path.js';
import { loadContract } from './contract.ts';
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

  router.get('/openapi.json', (_req, res) => {
    res.type('application/json').set('Cache-Control', 'no-cache').send(json);
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
  url: '/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  withCredentials: true,
  defaultModelsExpandDepth: 0,
});
`;
