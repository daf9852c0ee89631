import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Router } from 'express';
import { NotFoundError } from '#contract/errors';
import { projectRoot } from '../../platform/paths';
import { openApiDocument } from './document';
import { open } from '../http/scopes';

/** The files of swagger-ui-dist the reference page loads, served from here: the page works offline. */
const SWAGGER_FILES = new Set(['swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-32x32.png']);
const swaggerDir = path.dirname(require.resolve('swagger-ui-dist/package.json'));

/** No inline script: the app's Content-Security-Policy (script-src 'self') holds for this page too. */
const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Support desk API</title>
<link rel="icon" href="/api/docs/assets/favicon-32x32.png">
<link rel="stylesheet" href="/api/docs/assets/swagger-ui.css">
</head>
<body>
<div id="api-reference"></div>
<script src="/api/docs/assets/swagger-ui-bundle.js"></script>
<script src="/api/docs/init.js"></script>
</body>
</html>
`;

const INIT = `window.ui = SwaggerUIBundle({
  url: '/api/openapi.json',
  dom_id: '#api-reference',
  deepLinking: true,
  // The sections start folded: with every one of some 130 operations drawn at once the page stopped
  // drawing after its third section (Chromium, swagger-ui-dist 5), and folded it opens at once.
  docExpansion: 'none',
  validatorUrl: null,
  persistAuthorization: false,
});
`;

/**
 * GET /api/openapi.json (the OpenAPI 3.1 document, generated from the zod schemas the routes parse
 * with) and GET /api/docs, a Swagger UI reference page of it. Mounted before sign-in, the rate limit
 * and maintenance mode: the reference is public and holds no data.
 */
export const openApiRoutes = () => (router: Router) => {
  const version = (JSON.parse(readFileSync(path.join(projectRoot(), 'package.json'), 'utf8')) as { version: string }).version;
  router.get('/openapi.json', open, (_req, res) => {
    res.json(openApiDocument(version));
  });
  router.get('/docs', open, (_req, res) => {
    res.type('html').send(PAGE);
  });
  router.get('/docs/init.js', open, (_req, res) => {
    res.type('js').send(INIT);
  });
  router.get('/docs/assets/:file', open, (req, res) => {
    const file = req.params.file as string;
    if (!SWAGGER_FILES.has(file)) throw new NotFoundError('File');
    res.sendFile(file, { root: swaggerDir, maxAge: '1d' });
  });
};
