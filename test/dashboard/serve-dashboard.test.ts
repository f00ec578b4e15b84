import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveDashboard } from '../../src/dashboard/serve-dashboard';
import { errorHandler } from '../../src/http/error-handler';
import { startTestApp, type TestApp } from '../support/app';
import { readJson, serve, type Served } from '../support/http';

const dist = path.resolve(__dirname, '../../.test-data/serve-dashboard/dist');
const INDEX = '<!doctype html><title>Phone-Gateway</title><div id="root"></div>';

describe('serving the dashboard build', () => {
  let served: Served;
  let missing: Served;
  beforeAll(async () => {
    await rm(dist, { recursive: true, force: true });
    await mkdir(path.join(dist, 'assets'), { recursive: true });
    await writeFile(path.join(dist, 'index.html'), INDEX);
    await writeFile(path.join(dist, 'assets', 'index-abc123.js'), 'console.log(1)');
    await writeFile(path.join(dist, 'secret.txt'), 'not served');
    const app = (d: string) => new Koa().use(errorHandler()).use(serveDashboard({ dist: d }));
    served = await serve(app(dist));
    missing = await serve(app(path.join(dist, 'nowhere')));
  });
  afterAll(async () => {
    await served?.close();
    await missing?.close();
    await rm(dist, { recursive: true, force: true });
  });

  it('serves hashed assets as immutable and index.html revalidated on every load', async () => {
    const asset = await served.fetch('/assets/index-abc123.js');
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(await asset.text()).toBe('console.log(1)');

    const index = await served.fetch('/');
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(index.headers.get('cache-control')).toBe('no-cache');
    expect(index.headers.get('x-frame-options')).toBe('DENY');
    expect(await index.text()).toBe(INDEX);
  });

  it('answers every screen URL with index.html (the app routes it)', async () => {
    for (const url of ['/phones', '/batches/9b2d1c9e-0000-4000-8000-000000000000', '/sign-in?next=%2Fsend']) {
      const res = await served.fetch(url);
      expect({ url, status: res.status, body: await res.text() }).toEqual({ url, status: 200, body: INDEX });
    }
  });

  it('serves nothing else from the build folder', async () => {
    for (const url of ['/assets/missing-1.js', '/secret.txt', '/assets/..%2Fsecret.txt', '/assets/%2e%2e/secret.txt']) {
      const res = await served.fetch(url);
      expect({ url, status: res.status }).toEqual({ url, status: 404 });
    }
    const missingAsset = await served.fetch('/assets/missing-1.js');
    expect(await readJson(missingAsset)).toMatchObject({ code: 'not_found', status: 404 });
    const post = await served.fetch('/phones', { method: 'POST' });
    expect(post.status).toBe(404);
  });

  it('says how to build it when the build is missing', async () => {
    const res = await missing.fetch('/');
    expect(res.status).toBe(503);
    expect(await res.text()).toContain('npm run build:web');
  });
});

describe('the dashboard inside the API app', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app?.close());

  it('never shadows the API, the docs or the health checks', async () => {
    const unknown = await app.fetch('/v1/no-such-endpoint');
    expect(unknown.status).toBe(404);
    expect(await readJson(unknown)).toMatchObject({ code: 'not_found' });
    const nested = await app.fetch('/v1/devices/pairing-codes/x/y', { headers: { accept: 'text/html' } });
    expect(nested.headers.get('content-type')).toMatch(/^application\/json/);

    const docs = await app.fetch('/docs');
    expect(await docs.text()).toContain('swagger-ui');
    expect((await app.fetch('/docs/init.js')).headers.get('content-type')).toMatch(/javascript/);
    expect((await app.fetch('/healthz')).headers.get('content-type')).toMatch(/^application\/json/);
    expect((await app.fetch('/livez')).headers.get('content-type')).toMatch(/^application\/json/);
    expect((await app.fetch('/readyz')).headers.get('content-type')).toMatch(/^application\/json/);
    expect((await app.fetch('/v1/auth/config')).status).toBe(200);
  });

  it('answers a screen URL with the app page, built or not', async () => {
    const res = await app.fetch('/phones');
    expect([200, 503]).toContain(res.status);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-cache');
  });
});
