import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { MikroORM } from '@mikro-orm/postgresql';
import { createApp } from '../../src/app';
import { openOrm } from '../../src/db/orm';
import { systemClock } from '../../src/lib/clock';
import { createLogger } from '../../src/lib/logger';
import { buildServices } from '../../src/services';
import { testConfig } from '../support/config';
import { readJson, serve, type Served } from '../support/http';
import { freePort } from '../support/net';
import { createLocalEnv, createTimeSkippingEnv } from '../support/temporal';
import { ensureSearchAttributes } from '../../temporal/search-attributes';

describe('health endpoints', () => {
  const config = testConfig();
  let env: TestWorkflowEnvironment;
  let orm: MikroORM;
  let ready: Served;
  let temporalDown: Served;

  beforeAll(async () => {
    env = await createTimeSkippingEnv();
    orm = await openOrm(config.databaseUrl!);
    const logger = createLogger('silent');
    const clock = systemClock;
    const app = (temporal: Client) =>
      createApp({ config, logger, orm, temporal, services: buildServices({ config, logger, orm, temporal, clock }) });
    ready = await serve(app(env.client));
    // Nothing listens on this port: Temporal is unreachable for this app.
    const nowhere = new Client({
      connection: Connection.lazy({ address: `127.0.0.1:${await freePort()}`, connectTimeout: 500 }),
    });
    temporalDown = await serve(app(nowhere));
  });
  afterAll(async () => {
    await ready?.close();
    await temporalDown?.close();
    await orm?.close();
    await env?.teardown();
  });

  it('/healthz answers while the process is alive', async () => {
    const res = await ready.fetch('/healthz');
    expect(res.status).toBe(200);
    expect(await readJson(res)).toEqual({ status: 'ok' });
  });

  it('/livez answers 200 while the process is up, whatever its dependencies say', async () => {
    for (const app of [ready, temporalDown]) {
      const res = await app.fetch('/livez');
      expect(res.status).toBe(200);
      expect(await readJson(res)).toEqual({ status: 'ok' });
    }
  });

  it('/readyz is 200 when Postgres and Temporal answer', async () => {
    const res = await ready.fetch('/readyz');
    expect(res.status).toBe(200);
    expect(await readJson(res)).toEqual({ status: 'ok', checks: { postgres: 'ok', temporal: 'ok' } });
  });

  it('/readyz is 503 and names Temporal when it cannot be reached', async () => {
    const res = await temporalDown.fetch('/readyz');
    expect(res.status).toBe(503);
    expect(await readJson(res)).toEqual({ status: 'unavailable', checks: { postgres: 'ok', temporal: 'unreachable' } });
  });
});

describe('/readyz and the Temporal namespace (the dev server)', () => {
  const config = testConfig();
  const logger = createLogger('silent');
  let env: TestWorkflowEnvironment;
  let orm: MikroORM;
  const served: Served[] = [];

  beforeAll(async () => {
    env = await createLocalEnv();
    orm = await openOrm(config.databaseUrl!);
  }, 120_000);
  afterAll(async () => {
    for (const app of served) await app.close();
    await orm?.close();
    await env?.teardown();
  });

  /** An app whose Temporal client works in `namespace`. */
  async function appIn(namespace: string): Promise<Served> {
    const temporal = new Client({ connection: env.connection, namespace });
    const app = await serve(
      createApp({
        config,
        logger,
        orm,
        temporal,
        services: buildServices({ config, logger, orm, temporal, clock: systemClock }),
      }),
    );
    served.push(app);
    return app;
  }

  it('is 503 naming a namespace that does not exist', async () => {
    const app = await appIn('no-such-namespace');
    const res = await app.fetch('/readyz');
    expect(res.status).toBe(503);
    expect(await readJson(res)).toEqual({
      status: 'unavailable',
      checks: { postgres: 'ok', temporal: 'namespace no-such-namespace does not exist' },
    });
  });

  it('is 503 naming the search attributes a namespace lacks, 200 once they are there, and keeps that answer', async () => {
    const namespace = `bare-${Date.now()}`;
    await env.connection.workflowService.registerNamespace({
      namespace,
      workflowExecutionRetentionPeriod: msToTs('1 day'),
    });
    const app = await appIn(namespace);
    // A new namespace reaches every part of the server within a few seconds.
    let body: unknown;
    for (let tries = 0; tries < 100; tries++) {
      const res = await app.fetch('/readyz');
      body = await readJson(res);
      if (!JSON.stringify(body).includes('does not exist')) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(body).toEqual({
      status: 'unavailable',
      checks: {
        postgres: 'ok',
        temporal: `search attributes AccountId, DeviceId, WebhookId, BatchStatus, DeliveryStatus, LivenessStatus are missing on namespace ${namespace}`,
      },
    });

    await ensureSearchAttributes(env.connection, namespace);
    const ready = await app.fetch('/readyz');
    expect(ready.status).toBe(200);
    expect(await readJson(ready)).toEqual({ status: 'ok', checks: { postgres: 'ok', temporal: 'ok' } });

    // Found once, not looked up at every probe: an attribute removed now goes unseen by this app
    // (until NAMESPACE_RECHECK_MS), while a new app over the same namespace sees it.
    await env.connection.operatorService.removeSearchAttributes({ namespace, searchAttributes: ['WebhookId'] });
    expect((await app.fetch('/readyz')).status).toBe(200);
    const fresh = await (await appIn(namespace)).fetch('/readyz');
    expect(fresh.status).toBe(503);
    expect(await readJson(fresh)).toMatchObject({
      checks: { temporal: `search attributes WebhookId are missing on namespace ${namespace}` },
    });
  });
});
