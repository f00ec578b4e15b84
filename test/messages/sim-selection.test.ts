import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Message } from '../../src/messages/message.entity';
import { startTestApp, testClock, type TestApp } from '../support/app';
import { json } from '../support/accounts';
import { deviceRow } from '../support/factories';
import { readJson } from '../support/http';
import { bearer, type PairedPhone } from '../devices/helpers';
import { sendingTenant } from './helpers';

// A phone's sim_selection: a message naming no SIM gets one as it is handed out (round_robin: the
// phone's SIMs in turn, across fetches; random: any of them; os_default: none), recorded on the
// message; a message naming a SIM keeps it.

type Call = (method: string, path: string, body?: unknown) => Promise<Response>;

const numbers = (count: number, from = 0) =>
  Array.from({ length: count }, (_, i) => `+1415555${String(4000 + from + i).padStart(4, '0')}`);

describe("a phone's SIM selection", () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp({ clock: testClock(new Date()) });
  });
  afterAll(() => app?.close());

  async function phoneWithSims(subscriptionIds: number[], settings: Record<string, unknown>) {
    const tenant = await sendingTenant(app);
    const sims = subscriptionIds.map((id, slot) => ({ subscription_id: id, slot, carrier: `Carrier ${id}` }));
    const beat = await app.fetch('/v1/device/heartbeat', json('POST', { sims }, bearer(tenant.phone.token)));
    expect(beat.status).toBe(200);
    const res = await tenant.call('PATCH', `/v1/devices/${tenant.phone.id}`, settings);
    expect(res.status).toBe(200);
    return tenant;
  }

  async function send(call: Call, to: string[], extra: Record<string, unknown> = {}): Promise<string[]> {
    const res = await call('POST', '/v1/messages', { body: 'Rotate', to, ...extra });
    expect(res.status).toBe(202);
    return (await readJson(res)).message_ids;
  }

  /** What the phone is handed: each message's id and SIM. */
  const outbox = async (phone: PairedPhone, limit = 100): Promise<Map<string, number | null>> => {
    const res = await app.fetch(`/v1/device/outbox?limit=${limit}`, { headers: bearer(phone.token) });
    expect(res.status).toBe(200);
    const rows = (await readJson(res)).data as { id: string; sim_subscription_id: number | null }[];
    return new Map(rows.map((row) => [row.id, row.sim_subscription_id]));
  };

  it('rotates the SIMs across messages and fetches, keeps a named SIM, and shows the SIM on the message', async () => {
    const { call, phone } = await phoneWithSims([7, 3], { sim_selection: 'round_robin' });
    const first = await send(call, numbers(3));
    const named = await send(call, numbers(1, 10), { sim_subscription_id: 7 });

    // The SIMs in number order (3, then 7), one turn per message without a SIM.
    const handed = await outbox(phone);
    expect(first.map((id) => handed.get(id))).toEqual([3, 7, 3]);
    expect(handed.get(named[0])).toBe(7);

    // Handed out again, a message keeps its SIM; the next ones take the next turns.
    const second = await send(call, numbers(2, 20));
    const again = await outbox(phone);
    expect([...first, ...named].map((id) => again.get(id))).toEqual([3, 7, 3, 7]);
    expect(second.map((id) => again.get(id))).toEqual([7, 3]);

    const message = (await readJson(await call('GET', `/v1/messages/${second[0]}`))).message;
    expect(message).toMatchObject({ id: second[0], sim_subscription_id: 7 });
    expect((await readJson(await call('GET', `/v1/devices/${phone.id}`))).device.sim_selection).toBe('round_robin');
  });

  it('never gives two messages the same turn under concurrent fetches', async () => {
    const { call, phone } = await phoneWithSims([1, 2], { sim_selection: 'round_robin' });
    const ids = await send(call, numbers(20, 30));
    // Four fetches of five at once (each skips the rows another holds), then one for the rest.
    await Promise.all([1, 2, 3, 4].map(() => outbox(phone, 5)));
    await outbox(phone, 100);
    const messages = await app.orm.em.fork().find(Message, { id: { $in: ids } });
    expect(messages.every((m) => m.status === 'dispatched')).toBe(true);
    const perSim = new Map<number | null | undefined, number>();
    for (const m of messages) perSim.set(m.simSubscriptionId, (perSim.get(m.simSubscriptionId) ?? 0) + 1);
    expect(Object.fromEntries(perSim)).toEqual({ 1: 10, 2: 10 });
    expect((await deviceRow(app.orm, phone.id)).simRotation).toBe(20);
  });

  it('picks any of the SIMs with random, and none with os_default', async () => {
    const { call, phone } = await phoneWithSims([1, 2], { sim_selection: 'random' });
    const random = await send(call, numbers(12, 60));
    const handed = await outbox(phone);
    const sims = random.map((id) => handed.get(id));
    expect(sims.every((sim) => sim === 1 || sim === 2)).toBe(true);

    expect((await call('PATCH', `/v1/devices/${phone.id}`, { sim_selection: 'os_default' })).status).toBe(200);
    const plain = await send(call, numbers(2, 80));
    const after = await outbox(phone);
    expect(plain.map((id) => after.get(id))).toEqual([null, null]);
  });
});
