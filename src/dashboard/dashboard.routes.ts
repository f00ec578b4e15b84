import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import Router from '@koa/router';
import type { Context } from 'koa';
import { notFound } from '../http/errors';

/** The dashboard's production build (web/, `npm run build:web`). */
export const DASHBOARD_DIST = path.resolve(__dirname, '../../web/dist');

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
};

// Any path a browser may open by URL, except those the API owns: a screen of the single-page app.
const SCREEN = /^(?!\/(v1|docs|readyz|healthz)(\/|$))\/[^.]*$/;

const NOT_BUILT = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Dashboard not built</title></head>
<body><h1>The dashboard is not built</h1><p>Run <code>npm run build:web</code> (or <code>npm start</code>, which builds it) and reload.</p>
<p>The API itself is running: <a href="/docs">API reference</a>.</p></body></html>`;

/**
 * The dashboard on the API's own origin, so its session cookie and the Origin check just work.
 * Hashed files under /assets are immutable; index.html is revalidated on every load so a new
 * deployment is picked up at once. Any other extension-less GET (e.g. /phones, /batches/…) is a
 * screen of the app and gets index.html; /v1, /docs, /readyz and /healthz are never shadowed.
 */
export function dashboardRoutes({ dist = DASHBOARD_DIST }: { dist?: string } = {}): Router {
  const router = new Router();

  router.get(/^\/assets\/[A-Za-z0-9._-]+$/, async (ctx) => {
    const file = path.join(dist, 'assets', path.basename(ctx.path));
    const type = TYPES[path.extname(file)];
    const info = type ? await stat(file).catch(() => null) : null;
    if (!info?.isFile()) throw notFound('file');
    ctx.type = type;
    ctx.length = info.size;
    ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
    ctx.body = createReadStream(file);
  });

  router.get(SCREEN, async (ctx: Context) => {
    ctx.set('Cache-Control', 'no-cache');
    ctx.type = 'text/html; charset=utf-8';
    const html = await readFile(path.join(dist, 'index.html'), 'utf8').catch(() => null);
    if (html === null) {
      ctx.status = 503;
      ctx.body = NOT_BUILT;
      return;
    }
    // Clickjacking: the dashboard is never framed.
    ctx.set('X-Frame-Options', 'DENY');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.body = html;
  });

  return router;
}
