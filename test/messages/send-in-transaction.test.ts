import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/app';
import { sendingTenant } from './helpers';

// A send with an Idempotency-Key runs inside the key's transaction, on one connection. Statements
// sent to a node-postgres client while it still runs one queue up, and pg warns (once per process,
// node_modules/pg/lib/client.js queryQueueLengthDeprecationNotice): this file sends nothing else,
// so the warning of this send is the first.
describe('a send inside a transaction (Idempotency-Key)', () => {
  let app: TestApp;
  const warnings: string[] = [];
  const onWarning = (warning: Error) => warnings.push(warning.message);
  beforeAll(async () => {
    process.on('warning', onWarning);
    app = await startTestApp();
  });
  afterAll(async () => {
    process.off('warning', onWarning);
    await app?.close();
  });

  it('runs its statements one after another on the transaction’s connection', async () => {
    const tenant = await sendingTenant(app);
    const res = await app.fetch(
      '/v1/messages',
      json(
        'POST',
        { to: ['+14155550101', '+14155550102'], body: 'Your code is 1234' },
        { 'x-api-key': tenant.key, 'idempotency-key': `order-${randomUUID()}` },
      ),
    );
    expect(res.status).toBe(202);
    // Warnings are emitted on the next tick.
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings.filter((message) => message.includes('already executing a query'))).toEqual([]);
  });
});
