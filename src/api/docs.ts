import express, { Router } from 'express';
import { getAbsoluteFSPath } from 'swagger-ui-dist';
import { loadContract } from './contract.ts';

/**
 * `/openapi.json` (the contract as JSON) and `/docs` (Swagger UI). The UI's
 * assets come from the swagger-ui-dist package, so the page works offline.
 */
export function docsRouter(): Router {
  const router = Router();
  const json = JSON.stringify(loadContract());

  router.get('/openapi.json', (_req, res) => {
    res.type('application/json').set('Cache-Control', 'no-cache').send(json);
  });

  router.get('/docs', (_req, res) => {
    res.type('text/html').send(PAGE);
  });
  router.get('/docs/init.js', (_req, res) => {
    res.type('application/javascript').send(INIT);
  });
  router.use('/docs', express.static(getAbsoluteFSPath(), { index: false, fallthrough: true, maxAge: '1h' }));
  return router;
}

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Authentication gateway API</title>
  <link rel="stylesheet" href="/docs/swagger-ui.css">
  <link rel="icon" href="/docs/favicon-32x32.png">
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
