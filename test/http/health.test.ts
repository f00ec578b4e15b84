import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, Connection } from '@temporalio/client';
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
import { createTimeSkippingEnv } from '../support/temporal';

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
