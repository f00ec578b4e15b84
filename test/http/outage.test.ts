import path from 'node:path';
import Koa from 'koa';
import Router from '@koa/router';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../src/dev/embedded';
import { migrate, openOrm } from '../../src/db/orm';
import { errorHandler } from '../../src/http/error-handler';
import { startTestApp, type TestApp } from '../support/app';
import { createKey, json, registerAccount, type Account } from '../support/accounts';
import { freePort } from '../support/net';
import { readJson, serve, type Served } from '../support/http';
import { bearer, pairPhone } from '../devices/helpers';

async function expectUnavailable(res: Response) {
  expect(res.status).toBe(503);
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(await readJson(res)).toEqual({ code: 'unavailable', message: expect.any(String), status: 503 });
}

// Phones and clients must tell an outage (try again) from a bug: with Postgres stopped under a
// running app, every route answers 503 unavailable with Retry-After, never 500 internal.
describe('a database outage', () => {
  let postgres: EmbeddedPostgres;
  let app: TestApp;
  let account: Account;
  let key: string;
  let phoneToken: string;

  beforeAll(async () => {
    postgres = await startEmbeddedPostgres({
      dir: path.resolve(__dirname, '..', '..', '.test-data', `outage-${process.pid}`),
      port: await freePort(),
      database: 'phone_gateway_outage',
      persistent: false,
    });
    const orm = await openOrm(postgres.url);
    await migrate(orm);
    await orm.close();
    app = await startTestApp({ env: { DATABASE_URL: postgres.url } });
    account = await registerAccount(app, { verified: true });
    key = await createKey(app, account);
    phoneToken = (await pairPhone(app, key)).token;
    await postgres.stop();
  });
  afterAll(async () => {
    await app?.close().catch(() => undefined);
    await postgres?.stop().catch(() => undefined);
  });

  it.each([
    ['an API-key read', 'GET', '/v1/devices', undefined, () => ({ 'x-api-key': key })],
    ['a send', 'POST', '/v1/messages', { body: 'hi', to: ['+14155550100'] }, () => ({ 'x-api-key': key })],
    ['a session read', 'GET', '/v1/auth/me', undefined, () => ({ cookie: account.cookie })],
    ['a login', 'POST', '/v1/auth/login', { email: 'a@example.test', password: 'correct horse battery' }, () => ({})],
    [
      'a registration',
      'POST',
      '/v1/auth/register',
      { email: 'b@example.test', password: 'correct horse battery' },
      () => ({}),
    ],
    ['a phone polling its outbox', 'GET', '/v1/device/outbox', undefined, () => bearer(phoneToken)],
    ['a phone heartbeat', 'POST', '/v1/device/heartbeat', {}, () => bearer(phoneToken)],
  ])('answers %s with 503 unavailable and Retry-After', async (_what, method, route, body, headers) => {
    await expectUnavailable(await app.fetch(route, json(method, body, headers())));
  });

  it('stays alive and says it is not ready', async () => {
    expect((await app.fetch('/healthz')).status).toBe(200);
    const live = await app.fetch('/livez');
    expect(live.status).toBe(200);
    expect(await readJson(live)).toEqual({ status: 'ok' });
    const ready = await app.fetch('/readyz');
    expect(ready.status).toBe(503);
    expect(await readJson(ready)).toMatchObject({ checks: { postgres: 'unreachable' } });
  });
});

describe('a Temporal outage', () => {
  let api: Served;
  beforeAll(async () => {
    // Nothing listens on port 1: the real client fails as it does when the frontend is down.
    const temporal = new Client({ connection: Connection.lazy({ address: '127.0.0.1:1' }) });
    const router = new Router();
    router.post('/start', async (ctx) => {
      await temporal.withDeadline(Date.now() + 1000, () =>
        temporal.workflow.start('nothing', { taskQueue: 'nowhere', workflowId: 'outage-test' }),
      );
      ctx.body = { started: true };
    });
    router.get('/info', async (ctx) => {
      ctx.body = await temporal.withDeadline(Date.now() + 1000, () => temporal.workflowService.getSystemInfo({}));
    });
    const app = new Koa();
    app.silent = true;
    app.use(errorHandler()).use(router.routes());
    api = await serve(app);
  });
  afterAll(() => api?.close());

  it('maps an unreachable frontend to 503 unavailable with Retry-After', async () => {
    await expectUnavailable(await api.fetch('/start', { method: 'POST' }));
    await expectUnavailable(await api.fetch('/info'));
  });
});

describe('errors that are not outages', () => {
  let api: Served;
  let orm: Awaited<ReturnType<typeof openOrm>>;
  beforeAll(async () => {
    orm = await openOrm(inject('databaseUrl'));
    const router = new Router();
    // A NUL in a parameter breaks the wire protocol (08P01): a bug to fix, not a reason to retry.
    router.get('/nul', async (ctx) => {
      ctx.body = await orm.em.fork().execute('select ?::text as t', ['a\u0000b']);
    });
    const app = new Koa();
    app.silent = true;
    app.use(errorHandler()).use(router.routes());
    api = await serve(app);
  });
  afterAll(async () => {
    await api?.close();
    await orm?.close();
  });

  it('keeps a protocol violation a 500 internal, without Retry-After', async () => {
    const res = await api.fetch('/nul');
    expect(res.status).toBe(500);
    expect(res.headers.get('retry-after')).toBeNull();
    expect(await readJson(res)).toEqual({ code: 'internal', message: expect.any(String), status: 500 });
  });
});
