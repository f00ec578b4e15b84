import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json } from '../../support/accounts';
import { startTestApp, type TestApp } from '../../support/app';
import { readJson } from '../../support/http';
import { createTestWorker, createTimeSkippingEnv } from '../../support/temporal';
import { startReceiver, type Received, type Receiver } from '../../webhooks/receiver';
import { tenant } from './helpers';
import { INTEGRATOR_API, smsgateSignatureValid } from './integrator-client';

// SMSGate-shaped webhooks (registered through the drop-in, docs/smsgate-integrators.md "Webhooks")
// delivered for real: over HTTPS to a receiver on this machine, by a worker. Signed as SMSGate
// signs, checked the way SMSGate tells its users to check; and refused at connect time by a worker
// that does not allow private networks, whatever the API allowed when the URL was registered.

describe('SMSGate-shaped webhook deliveries', () => {
  let env: TestWorkflowEnvironment;
  /** Private networks allowed (the receiver is on loopback), as in development. */
  let open: TestApp;
  /** The production default: private networks refused, by the api and by its worker. */
  let strict: TestApp;
  const workers: { worker: Worker; running: Promise<void> }[] = [];
  let receiver: Receiver;

  beforeAll(async () => {
    env = await createTimeSkippingEnv();
    open = await startTestApp({
      temporal: env.client,
      env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', TEMPORAL_TASK_QUEUE: 'smsgate-hooks-open' },
    });
    strict = await startTestApp({ temporal: env.client, env: { TEMPORAL_TASK_QUEUE: 'smsgate-hooks-strict' } });
    expect(strict.config.webhooks.allowPrivateNetworks).toBe(false);
    for (const app of [open, strict]) {
      const worker = await createTestWorker(env, { config: app.config, orm: app.orm, sweeps: [] });
      workers.push({ worker, running: worker.run() });
    }
    receiver = await startReceiver();
  }, 120_000);
  afterAll(async () => {
    for (const { worker, running } of workers) {
      worker.shutdown();
      await running;
    }
    await receiver?.close();
    await strict?.close();
    await open?.close();
    await env?.teardown();
  });

  /** Registers an SMSGate webhook through the drop-in (on `app`), and has it sent a ping (on `via`). */
  async function pingThrough(app: TestApp, via: TestApp, key: string, hookId: string) {
    const made = await app.fetch(
      `${INTEGRATOR_API}/webhooks`,
      json('POST', { id: hookId, url: `${receiver.url}/${hookId}`, event: 'system:ping' }, { 'x-api-key': key }),
    );
    expect(made.status, await made.clone().text()).toBe(201);
    const hooks = await readJson(await app.fetch('/v1/webhooks', { headers: { 'x-api-key': key } }));
    const hook = hooks.data.find((w: { url: string }) => w.url.endsWith(`/${hookId}`));
    const test = await via.fetch(`/v1/webhooks/${hook.id}/test`, json('POST', undefined, { 'x-api-key': key }));
    expect(test.status).toBe(202);
    return (await readJson(test)).delivery.id as string;
  }

  it('delivers over HTTPS in SMSGate’s shape, its signature valid by SMSGate’s documented check', async () => {
    const { key } = await tenant(open);
    const signingKey = 'receiver-side-signing-key-0123';
    const settings = await open.fetch(
      `${INTEGRATOR_API}/settings`,
      json('PATCH', { webhooks: { signing_key: signingKey } }, { 'x-api-key': key }),
    );
    expect(settings.status).toBe(200);
    const deliveryId = await pingThrough(open, open, key, 'signed-ping');

    await expect.poll(() => receiver.requests.filter((r) => r.deliveryId === deliveryId).length).toBe(1);
    const call = receiver.requests.find((r) => r.deliveryId === deliveryId)!;
    expect(JSON.parse(call.raw)).toEqual({
      id: expect.any(String),
      webhookId: 'signed-ping',
      deviceId: null,
      event: 'system:ping',
      payload: expect.any(Object),
    });
    expect(smsgateSignatureValid(call, signingKey)).toBe(true);

    // The check is the documented one: each part of it refuses what it should.
    const altered = (change: Partial<Received>): Received => ({ ...call, ...change });
    expect(smsgateSignatureValid(call, `${signingKey}x`)).toBe(false);
    expect(smsgateSignatureValid(altered({ raw: call.raw.replace('system:ping', 'system:pong') }), signingKey)).toBe(
      false,
    );
    expect(smsgateSignatureValid(altered({ raw: `${call.raw} ` }), signingKey)).toBe(false);
    const sentAt = Number(call.headers['x-timestamp']) * 1000;
    expect(smsgateSignatureValid(call, signingKey, sentAt + 5 * 60_000 + 1000)).toBe(false);
    expect(smsgateSignatureValid(call, signingKey, sentAt - 5 * 60_000 - 1000)).toBe(false);
    // Not our Stripe-style scheme: `<t>.<body>` does not verify.
    const dotted = altered({
      raw: `${call.headers['x-timestamp']}.${call.raw}`,
      headers: { ...call.headers, 'x-timestamp': '' },
    });
    expect(smsgateSignatureValid(dotted, signingKey)).toBe(false);
  });

  it('refuses at connect time a registered URL on a private network when they are not allowed', async () => {
    // Registered while private networks were allowed; sent by a worker that does not allow them.
    const { key } = await tenant(open);
    const before = receiver.requests.length;
    const deliveryId = await pingThrough(open, strict, key, 'ssrf-ping');

    const attempted = async () =>
      (await readJson(await strict.fetch(`/v1/webhooks/deliveries/${deliveryId}`, { headers: { 'x-api-key': key } })))
        .delivery;
    await expect.poll(async () => (await attempted()).attempt_count).toBeGreaterThan(0);
    expect(await attempted()).toMatchObject({ http_status: null, error: expect.stringMatching(/private or reserved/) });
    expect(receiver.requests.slice(before).filter((r) => r.raw.includes('ssrf-ping'))).toEqual([]);

    // The same registration through the strict API is refused in SMSGate's shape.
    const refused = await strict.fetch(
      `${INTEGRATOR_API}/webhooks`,
      json('POST', { url: `${receiver.url}/again`, event: 'system:ping' }, { 'x-api-key': key }),
    );
    expect(refused.status).toBe(400);
    expect(await readJson(refused)).toEqual({
      message: expect.any(String),
      data: { code: 'validation_failed', errors: [{ field: 'body.url', message: expect.stringMatching(/private/) }] },
    });
  });
});
