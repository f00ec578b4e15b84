import { randomUUID } from 'node:crypto';
import type Router from '@koa/router';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app';
import { createLogger } from '../../src/lib/logger';
import { operations } from '../../src/openapi-parts';
import { createKey, registerAccount } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/app';
import { readJson } from '../support/http';

/** "METHOD /path" of every route the app registers, as OpenAPI paths. */
function registeredRoutes(app: TestApp): string[] {
  const koa = createApp({
    config: app.config,
    logger: createLogger('silent'),
    orm: app.orm,
    temporal: new Client({ connection: Connection.lazy({ address: '127.0.0.1:1' }) }),
    services: app.services,
  });
  const routers = koa.middleware
    .map((fn) => (fn as { router?: Router }).router)
    .filter((router): router is Router => router !== undefined);
  const routes = new Set<string>();
  for (const router of routers) {
    for (const layer of router.stack) {
      const path = layer.path.toString().replace(/:(\w+)/g, '{$1}');
      for (const method of layer.methods) {
        if (method === 'HEAD') continue;
        if (['/healthz', '/livez', '/readyz'].includes(path) || path.startsWith('/docs')) continue;
        // Other apps' protocols (the SMSGate app's mobile API) are theirs to document, not our /v1's.
        if (path.startsWith('/compat/')) continue;
        routes.add(`${method} ${path}`);
      }
    }
  }
  return [...routes].sort();
}

const documented = operations.map((op) => `${op.method.toUpperCase()} ${op.path}`).sort();

describe('serving the OpenAPI document', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app?.close());

  it('serves the document at /v1/openapi.json without credentials', async () => {
    const res = await app.fetch('/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const doc = await readJson(res);
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('1.0.0');
    expect(doc.servers).toEqual([{ url: app.config.publicUrl }]);
    expect(Object.keys(doc.paths)).toContain('/v1/messages');
  });

  it('documents every registered route, and only registered routes', () => {
    const routes = registeredRoutes(app);
    expect(routes.length).toBeGreaterThan(50);
    expect(routes.filter((r) => !documented.includes(r))).toEqual([]);
    expect(documented.filter((r) => !routes.includes(r))).toEqual([]);
  });

  it("matches each operation's security to what the route accepts", async () => {
    const account = await registerAccount(app, { verified: true });
    const readKey = await createKey(app, account, ['read']);
    const mismatches: string[] = [];
    for (const op of operations) {
      const path = op.path.replace('{id}', randomUUID());
      const init = (headers: Record<string, string> = {}): RequestInit => ({
        method: op.method.toUpperCase(),
        headers: { 'content-type': 'application/json', ...headers },
        ...(op.method === 'get' ? {} : { body: '{}' }),
        redirect: 'manual',
      });
      const anonymous = (await app.fetch(path, init())).status;
      const withReadKey = await app.fetch(path, init({ 'X-Api-Key': readKey }));
      const keyed = {
        status: withReadKey.status,
        code: withReadKey.status >= 400 ? (await readJson(withReadKey)).code : '',
      };

      const open = op.auth === 'none' || op.auth === 'optionalSession';
      if (open !== (anonymous !== 401)) mismatches.push(`${op.method} ${op.path} anonymous ${anonymous}`);
      const expectKey =
        typeof op.auth === 'object'
          ? op.auth.scope === 'read'
            ? 'accepted'
            : 'insufficient_scope'
          : op.auth === 'sessionOrKey' || open
            ? 'accepted'
            : 'unauthenticated';
      const gotKey =
        keyed.status === 401 ? 'unauthenticated' : keyed.code === 'insufficient_scope' ? keyed.code : 'accepted';
      if (gotKey !== expectKey) mismatches.push(`${op.method} ${op.path} read key ${keyed.status} ${keyed.code}`);
    }
    expect(mismatches).toEqual([]);
  });

  it('renders the docs page with the local Swagger UI assets', async () => {
    const res = await app.fetch('/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await res.text();
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(assets).toEqual(
      expect.arrayContaining(['/docs/assets/swagger-ui.css', '/docs/assets/swagger-ui-bundle.js', '/docs/init.js']),
    );
    // Everything is served here: no CDN.
    expect(assets.filter((a) => !a.startsWith('/'))).toEqual([]);
    for (const asset of assets) expect((await app.fetch(asset)).status, asset).toBe(200);

    const bundle = await app.fetch('/docs/assets/swagger-ui-bundle.js');
    expect(bundle.headers.get('content-type')).toMatch(/javascript/);
    expect((await bundle.text()).length).toBeGreaterThan(100_000);
    const init = await (await app.fetch('/docs/init.js')).text();
    expect(init).toContain("url: '/v1/openapi.json'");
    expect(init).toContain('validatorUrl: null');
  });

  it('serves no file outside the Swagger UI allow-list', async () => {
    for (const path of ['/docs/assets/package.json', '/docs/assets/..%2F..%2Fpackage.json', '/docs/assets/index.js']) {
      const res = await app.fetch(path);
      expect(res.status, path).toBe(404);
      expect((await readJson(res)).code).toBe('not_found');
    }
  });
});
