import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSecretBox } from '../../src/lib/secret-box';
import type { PostOptions } from '../../src/webhooks/outbound';
import { WebhookDelivery } from '../../src/webhooks/delivery.entity';
import { startTestApp, type TestApp } from '../support/app';
import { createTenant, createWebhook, emitEvent, deliveryQueueServiceOf, verifyByHand } from './helpers';

describe('webhook signing secrets sealed at rest (SECRETS_KEY)', () => {
  const key = randomBytes(32);
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp({ env: { SECRETS_KEY: key.toString('base64'), WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } });
  });
  afterAll(() => app?.close());

  it('seals and opens, refuses a tampered value, and passes plain values through without a key', () => {
    const box = createSecretBox(key);
    const sealed = box.seal('whsec_abc');
    expect(sealed).toMatch(/^sealed:v1:/);
    expect(sealed).not.toContain('whsec_abc');
    expect(box.open(sealed)).toBe('whsec_abc');
    expect(() => box.open(sealed.slice(0, -2) + 'AA')).toThrow();
    expect(() => createSecretBox(randomBytes(32)).open(sealed)).toThrow();
    expect(createSecretBox().seal('plain')).toBe('plain');
    expect(() => createSecretBox().open(sealed)).toThrow(/SECRETS_KEY/);
  });

  it('stores only the sealed secret, and deliveries are signed with the opened one', async () => {
    const tenant = await createTenant(app);
    const { id, secret } = await createWebhook(tenant, 'https://127.0.0.1:9/hook');
    // Storage itself: the secret at rest is sealed.
    const [row] = await app.orm.em.fork().execute('select secret from webhook_secrets where webhook_id = ?', [id]);
    expect(row.secret).toMatch(/^sealed:v1:/);
    expect(row.secret).not.toContain(secret);

    await emitEvent(app, tenant.userId);
    const delivery = await app.orm.em.fork().findOneOrFail(WebhookDelivery, { webhookId: id });
    const sent: PostOptions[] = [];
    // The queue's pass, run here without Temporal, with the request captured rather than sent.
    const queue = deliveryQueueServiceOf(app, async (options) => {
      sent.push(options);
      return { status: 200, excerpt: 'ok', error: null, durationMs: 1 };
    });
    expect(await queue.pass({ webhookId: id, dueByMs: Date.now() })).toMatchObject({
      status: 'delivered',
      due: false,
      nextDueAtMs: null,
    });
    expect(sent).toHaveLength(1);
    expect(sent[0].headers['X-Service-Delivery']).toBe(delivery.id);
    expect(verifyByHand(sent[0].body, sent[0].headers['X-Service-Signature'], secret)).toBe(true);
    expect(verifyByHand(sent[0].body, sent[0].headers['X-Service-Signature'], 'another secret')).toBe(false);
  });
});
