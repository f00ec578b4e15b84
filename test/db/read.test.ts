import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { raw, type EntityName, type FilterQuery } from '@mikro-orm/postgresql';
import { compiles, readRows, viaQueryBuilder } from '../../src/db/read';
import { afterCursor } from '../../src/http/pagination';
import { Batch } from '../../src/messages/batch.entity';
import { Message } from '../../src/messages/message.entity';
import { Device } from '../../src/devices/device.entity';
import { startTestApp, type TestApp } from '../support/app';
import { readJson } from '../support/http';
import { bearer, pairPhone } from '../devices/helpers';
import { json } from '../support/accounts';
import { sendingTenant } from '../messages/helpers';

// readRows writes the SQL of the filters lists use itself; it must return exactly what MikroORM's
// query builder returns for them (same rows, order, property names and value types).
describe('readRows', () => {
  let app: TestApp;
  let userId: string;
  let phones: string[];
  beforeAll(async () => {
    app = await startTestApp();
    const tenant = await sendingTenant(app);
    userId = tenant.account.userId;
    const second = await pairPhone(app, tenant.key);
    phones = [tenant.phone.id, second.id];
    for (const [i, device_id] of [phones[0], phones[1], phones[0]].entries()) {
      // Each send a second after the one before: the created_at filters and cursors have rows on both sides.
      app.clock.advance(1000);
      const res = await tenant.call('POST', '/v1/messages', {
        body: `Order ${i}`,
        to: ['+14155550100', `+1415555011${i}`],
        device_id,
      });
      expect(res.status).toBe(202);
    }
    // One sent: the rows differ in status and in which timestamps are set.
    const { data } = await readJson(await app.fetch('/v1/device/outbox', { headers: bearer(tenant.phone.token) }));
    const sent = await app.fetch(
      `/v1/device/messages/${data[0].id}/status`,
      json('POST', { status: 'sent' }, bearer(tenant.phone.token)),
    );
    expect(sent.status).toBe(200);
  });
  afterAll(() => app?.close());

  const em = () => app.orm.em.fork();
  const byNewest = { orderBy: { createdAt: 'desc' as const, id: 'desc' as const } };

  async function same<T extends object>(
    entity: EntityName<T>,
    where: FilterQuery<T>,
    options = byNewest,
    limit?: number,
  ) {
    expect(compiles(em(), entity, where)).toBe(true);
    const fast = await readRows(em(), entity, where, { ...options, limit });
    const built = await viaQueryBuilder(em(), entity, where, { ...options, limit });
    expect(fast.length).toBeGreaterThan(0);
    expect(fast).toEqual(built);
    return fast;
  }

  it('returns what the query builder returns for every filter the lists use', async () => {
    const messages = await same(Message, { userId }, byNewest, 51);
    expect(messages).toHaveLength(6);
    expect(messages[0]).toBeInstanceOf(Object);
    expect(messages[0].createdAt).toBeInstanceOf(Date);
    expect(messages.filter((m) => m.status === 'sent')).toHaveLength(1);
    await same(Message, { userId, status: 'sent' });
    await same(Message, { userId, deviceId: { $in: phones } });
    await same(Message, { userId, deviceId: phones[1], direction: 'outbound' });
    await same(Message, { userId, sentAt: null });
    const middle = messages[2];
    await same(Message, { userId, createdAt: { $gte: messages[4].createdAt, $lt: middle.createdAt } });
    // A page after a cursor, both orders.
    await same(Message, { $and: [{ userId }, afterCursor(middle, 'desc')] } as FilterQuery<Message>, byNewest, 2);
    await same(
      Message,
      { $and: [{ userId }, afterCursor(middle, 'asc')] } as FilterQuery<Message>,
      {
        orderBy: { createdAt: 'asc', id: 'asc' },
      } as never,
    );
    await same(Batch, { userId });
    await same(Device, { userId, unpairedAt: null }, {
      orderBy: { isDefault: 'desc', createdAt: 'desc', id: 'desc' },
    } as never);
  });

  it('leaves a filter it does not know (a raw SQL key) to the query builder', async () => {
    const where = { userId, [raw((alias) => `${alias}.body`)]: { $ilike: '%order 1%' } } as FilterQuery<Message>;
    expect(compiles(em(), Message, where)).toBe(false);
    const rows = await readRows(em(), Message, where, byNewest);
    expect(rows.map((m) => m.body)).toEqual(['Order 1', 'Order 1']);
  });

  it('matches nothing of another account', async () => {
    expect(await readRows(em(), Message, { userId: '00000000-0000-4000-8000-000000000000' }, byNewest)).toEqual([]);
  });
});
