import { createReadStream } from 'node:fs';
import path from 'node:path';
import Router from '@koa/router';
import { notFound } from '../http/errors';
import { buildDocument, type DocumentParts } from './document';

// swagger-ui-dist's own helper (getAbsoluteFSPath) without loading its 1 MB bundle into Node.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a CommonJS helper that returns its folder
const swaggerUiDir: string = require('swagger-ui-dist/absolute-path.js')();

// Only these files are served, so no request path ever reaches the file system.
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Phone-Gateway API</title>
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
  <link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png" sizes="32x32">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>
`;

// A separate file rather than an inline script, so a strict Content-Security-Policy can allow it.
// validatorUrl null: the page must not call swagger.io (works offline, leaks nothing).
const INIT = `window.ui = SwaggerUIBundle({
  url: '/v1/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  validatorUrl: null,
  presets: [SwaggerUIBundle.presets.apis],
});
`;

/**
 * GET /v1/openapi.json (the document of `parts`, every feature's operations and resources) and GET /docs
 * (Swagger UI over it, assets served locally).
 */
export function openapiRoutes({ parts, publicUrl }: { parts: DocumentParts; publicUrl?: string }): Router {
  const router = new Router();
  let document: string | undefined;

  router.get('/v1/openapi.json', (ctx) => {
    document ??= JSON.stringify(buildDocument(parts, { serverUrl: publicUrl }));
    ctx.type = 'application/json';
    ctx.body = document;
  });

  router.get('/docs', (ctx) => {
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = PAGE;
  });

  router.get('/docs/init.js', (ctx) => {
    ctx.type = 'text/javascript; charset=utf-8';
    ctx.body = INIT;
  });

  router.get('/docs/assets/:file', (ctx) => {
    const type = ASSETS[ctx.params.file];
    if (!type) throw notFound('file');
    ctx.type = type;
    ctx.set('Cache-Control', 'public, max-age=86400');
    ctx.body = createReadStream(path.join(swaggerUiDir, ctx.params.file));
  });

  return router;
}
