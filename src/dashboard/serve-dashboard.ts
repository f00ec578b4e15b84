import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Middleware } from 'koa';
import { notFound } from '../http/errors';
import { projectRoot } from '../lib/root';

/** The dashboard's production build (web/, `npm run build:web`). */
export const DASHBOARD_DIST = path.join(projectRoot, 'web', 'dist');

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};

const ASSET = /^\/assets\/[A-Za-z0-9._-]+$/;
// Any extension-less path a browser may open by URL, except those the API owns: a screen of the app.
const SCREEN = /^(?!\/(v1|compat|docs|readyz|livez|healthz|metrics)(\/|$))\/[^.]*$/;

const NOT_BUILT = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Dashboard not built</title></head>
<body><h1>The dashboard is not built</h1><p>Run <code>npm run build:web</code> (<code>npm start</code> builds it) and reload.</p>
<p>The API itself is running: <a href="/docs">API reference</a>.</p></body></html>`;

/**
 * The dashboard on the API's own origin, so its session cookie and the Origin check just work.
 * Mounted after every router: it only sees GETs no API route answered. Hashed files under /assets
 * are immutable; index.html is revalidated on every load so a new deployment shows at once. Any
 * other extension-less GET (/phones, /batches/…) is a screen of the app and gets index.html; /v1,
 * /compat, /docs, /readyz, /livez, /healthz and /metrics are never shadowed: an unknown path under
 * them is the API's 404 (a phone app must never parse a page as JSON).
 */
export function serveDashboard({ dist = DASHBOARD_DIST }: { dist?: string } = {}): Middleware {
  return async (ctx, next) => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    if (ASSET.test(ctx.path)) {
      const file = path.join(dist, 'assets', path.basename(ctx.path));
      const type = TYPES[path.extname(file)];
      const info = type ? await stat(file).catch(() => null) : null;
      if (!info?.isFile()) throw notFound('file');
      ctx.type = type;
      ctx.length = info.size;
      ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
      ctx.body = createReadStream(file);
      return;
    }
    if (!SCREEN.test(ctx.path)) return next();
    const html = await readFile(path.join(dist, 'index.html'), 'utf8').catch(() => null);
    ctx.type = 'text/html; charset=utf-8';
    ctx.set('Cache-Control', 'no-cache');
    if (html === null) {
      ctx.status = 503;
      ctx.body = NOT_BUILT;
      return;
    }
    // The dashboard is never framed (clickjacking) nor sniffed.
    ctx.set('X-Frame-Options', 'DENY');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.body = html;
  };
}
