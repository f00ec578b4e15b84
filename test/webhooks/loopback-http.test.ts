import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config';
import { startTestApp, type TestApp } from '../support/app';
import { readJson } from '../support/http';
import { createTestWorker, createTimeSkippingEnv } from '../support/temporal';
import { createTenant, createWebhook, expectSigned, resultOf, serverClock } from './helpers';

// Trying a webhook on a laptop: under npm start (development) a receiver on this machine over plain
// http is taken, so no certificate is needed; anywhere else, and to any other host, https only.
describe('webhooks to a plain http receiver on this machine', () => {
  let env: TestWorkflowEnvironment;
  let app: TestApp;
  let strict: TestApp;
  let worker: Worker;
  let running: Promise<void>;
  let server: Server;
  let url: string;
  const received: Array<{ raw: string; headers: IncomingHttpHeaders }> = [];

  beforeAll(async () => {
    env = await createTimeSkippingEnv();
    app = await startTestApp({
      temporal: env.client,
      env: { WEBHOOK_ALLOW_LOOPBACK_HTTP: 'true', TEMPORAL_TASK_QUEUE: 'webhooks-loopback-http-test' },
    });
    strict = await startTestApp();
    worker = await createTestWorker(env, { config: app.config, orm: app.orm, clock: serverClock, sweeps: [] });
    running = worker.run();
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        received.push({ raw: Buffer.concat(chunks).toString('utf8'), headers: req.headers });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  });
  afterAll(async () => {
    worker?.shutdown();
    await running;
    await new Promise((resolve) => server?.close(resolve));
    await strict?.close();
    await app?.close();
    await env?.teardown();
  });

  it('is on by default under development only', () => {
    const config = (env: Record<string, string>) => loadConfig({}, { LOG_LEVEL: 'silent', ...env }).webhooks;
    expect(config({ NODE_ENV: 'development' }).allowLoopbackHttp).toBe(true);
    expect(config({ NODE_ENV: 'test' }).allowLoopbackHttp).toBe(false);
    expect(config({ NODE_ENV: 'development', WEBHOOK_ALLOW_LOOPBACK_HTTP: 'false' }).allowLoopbackHttp).toBe(false);
    expect(() =>
      loadConfig(
        {},
        {
          NODE_ENV: 'production',
          LOG_LEVEL: 'silent',
          SECRETS_KEY: Buffer.alloc(32, 7).toString('base64'),
          PUBLIC_URL: 'https://gateway.example.com',
          WEBHOOK_ALLOW_LOOPBACK_HTTP: 'true',
        },
      ),
    ).toThrow(/WEBHOOK_ALLOW_LOOPBACK_HTTP/);
  });

  it('delivers a signed ping to http://127.0.0.1 where it is allowed', async () => {
    const tenant = await createTenant(app);
    const created = await createWebhook(tenant, url, ['message.sent']);
    const res = await tenant.call('POST', `/v1/webhooks/${created.id}/test`);
    expect(res.status).toBe(202);
    const { delivery } = await readJson(res);
    expect(await resultOf(env, app, delivery.id)).toBe('delivered');
    const ping = received.find((r) => JSON.parse(r.raw).data?.webhook_id === created.id);
    expect(ping).toBeDefined();
    expectSigned({ raw: ping!.raw, signature: String(ping!.headers['x-service-signature']) }, created.secret);
  });

  it('refuses plain http to any other host, and to this machine where it is not allowed', async () => {
    const allowed = await createTenant(app);
    for (const other of ['http://example.com/hook', 'http://10.0.0.8/hook', 'http://user:pw@127.0.0.1/hook']) {
      const res = await allowed.call('POST', '/v1/webhooks', { url: other, events: ['ping'] });
      expect(res.status, other).toBe(422);
    }
    const refused = await (await createTenant(strict)).call('POST', '/v1/webhooks', { url, events: ['ping'] });
    expect(refused.status).toBe(422);
    expect((await readJson(refused)).errors).toEqual([
      expect.objectContaining({ field: 'body.url', message: 'url must be an https URL' }),
    ]);
  });
});
