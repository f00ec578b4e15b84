import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { raw, type EntityName, type FilterQuery } from '@mikro-orm/postgresql';
import { readRows, viaQueryBuilder } from '../../src/db/read';
import { compiles } from '../../src/db/read-compiler';
import { afterCursor } from '../../src/http/pagination';
import { Batch } from '../../src/messages/batch.entity';
import { Message } from '../../src/messages/message.entity';
import { Device } from '../../src/devices/device.entity';
import { startTestApp, type TestApp } from '../support/app';
import { readJson } from '../support/http';
import { bearer, pairPhone } from '../devices/helpers';
import { json } from '../support/accounts';
import { sendingTenant } from '../messages/helpers';

// The read compiler (src/db/read-compiler.ts) against its slow path, MikroORM's query builder, on the
// same filters: readRows must return exactly what the query builder returns (same rows, order,
// property names and value types), and a filter the compiler refuses goes to the query builder.
describe('readRows and the read compiler', () => {
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
    const middle = messages[2];
    const filters: [string, FilterQuery<Message>, number?][] = [
      ['a value', { userId, status: 'sent' }],
      ['$in of two', { userId, deviceId: { $in: phones } }],
      ['$in of one', { userId, deviceId: { $in: [phones[1]] } }],
      ['two values', { userId, deviceId: phones[1], direction: 'outbound' }],
      ['null', { userId, sentAt: null }],
      ['$ne', { userId, status: { $ne: 'sent' } }],
      ['a number', { userId, position: 1 }],
      ['a boolean', { userId, encrypted: false }],
      ['$gte and $lt', { userId, createdAt: { $gte: messages[4].createdAt, $lt: middle.createdAt } }],
      ['$gt and $lte', { userId, createdAt: { $gt: messages[4].createdAt, $lte: middle.createdAt } }],
      [
        '$or',
        {
          $or: [
            { userId, status: 'sent' },
            { userId, position: 0 },
          ],
        } as FilterQuery<Message>,
      ],
      ['a limit', { userId }, 2],
      // A page after a cursor.
      ['a cursor', { $and: [{ userId }, afterCursor(middle, 'desc')] } as FilterQuery<Message>, 2],
    ];
    for (const [name, where, limit] of filters) {
      expect(compiles(em(), Message, where), name).toBe(true);
      await same(Message, where, byNewest, limit);
    }
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

  it('refuses a filter it does not know, which the query builder then answers', async () => {
    // Functions: a raw SQL key can be used once.
    const refused: [string, () => FilterQuery<Message>][] = [
      [
        'a raw SQL key',
        () => ({ userId, [raw((alias) => `${alias}.body`)]: { $ilike: '%order 1%' } }) as FilterQuery<Message>,
      ],
      ['an operator not listed', () => ({ userId, body: { $ilike: '%order 1%' } })],
      ['an empty $in', () => ({ userId, deviceId: { $in: [] } })],
      ['a null in $in', () => ({ userId, sentAt: { $in: [null] } }) as FilterQuery<Message>],
    ];
    for (const [name, where] of refused) {
      expect(compiles(em(), Message, where()), name).toBe(false);
      expect(await readRows(em(), Message, where(), byNewest), name).toEqual(
        await viaQueryBuilder(em(), Message, where(), byNewest),
      );
    }
    const rows = await readRows(em(), Message, refused[1][1](), byNewest);
    expect(rows.map((m) => m.body)).toEqual(['Order 1', 'Order 1']);
  });

  it('matches nothing of another account', async () => {
    expect(await readRows(em(), Message, { userId: '00000000-0000-4000-8000-000000000000' }, byNewest)).toEqual([]);
  });
});
