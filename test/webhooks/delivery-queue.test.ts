import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app';
import { createTenant, createWebhook, deliveryQueueServiceOf, queueUnstarted } from './helpers';
import { startReceiver, type Receiver } from './receiver';

// A queue pass sends up to 32 deliveries of a webhook at once. Each attempt is recorded as it ends
// (those that end together in one transaction), not when the slowest of its batch has ended: a
// crash then sends again only what was in flight, and attempt_count misses nothing answered.

describe('a webhook queue pass', () => {
  let app: TestApp;
  let receiver: Receiver | undefined;

  beforeAll(async () => {
    app = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } });
  });
  afterAll(async () => {
    await receiver?.close();
    await app?.close();
  });

  it('records every answered attempt while another request of its batch still hangs, without a listener warning', async () => {
    let release!: () => void;
    const hung = new Promise<void>((resolve) => (release = resolve));
    receiver = await startReceiver(async (_request, index) => {
      if (index === 0) await hung;
      return { status: 200, body: 'ok' };
    });
    const tenant = await createTenant(app);
    const { id } = await createWebhook(tenant, receiver.url);
    // Queued without starting a workflow: this test runs the pass itself.
    for (let i = 0; i < 12; i++) {
      await queueUnstarted(app, {
        userId: tenant.userId,
        name: 'message.received',
        data: { id: randomUUID(), direction: 'inbound', body: `text ${i}` },
        messageId: null,
      });
    }

    // The queue's pass, run here without Temporal, against the real receiver.
    const queue = deliveryQueueServiceOf(app);
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
    process.on('warning', onWarning);
    const recorded = async () => {
      const [row] = await app.orm.em.fork().execute(
        `select (select count(*) from webhook_attempts a join webhook_deliveries d on d.id = a.delivery_id
                    where d.webhook_id = ?) as attempts,
                  (select count(*) from webhook_deliveries where webhook_id = ? and attempt_count = 1
                     and status = 'delivered') as delivered,
                  (select success_count from webhooks where id = ?) as successes`,
        [id, id, id],
      );
      return { attempts: Number(row.attempts), delivered: Number(row.delivered), successes: Number(row.successes) };
    };
    try {
      // The signal a worker hands its activity: every request in flight listens to it.
      const abort = new AbortController();
      const pass = queue.pass({ webhookId: id, dueByMs: Date.now() }, abort.signal);
      await expect.poll(recorded, { timeout: 20_000 }).toEqual({ attempts: 11, delivered: 11, successes: 11 });
      expect(receiver.requests).toHaveLength(12);
      release();
      expect(await pass).toMatchObject({ status: 'delivered', due: false });
      expect(await recorded()).toEqual({ attempts: 12, delivered: 12, successes: 12 });
      // Warnings are emitted on a later tick.
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((warning) => /MaxListeners/.test(warning))).toEqual([]);
    } finally {
      release();
      process.off('warning', onWarning);
    }
  });
});
