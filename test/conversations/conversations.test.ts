import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app';
import { json } from '../support/accounts';
import { readJson } from '../support/http';
import { bearer } from '../devices/helpers';
import { sendingTenant } from '../messages/helpers';

type Tenant = Awaited<ReturnType<typeof sendingTenant>>;

describe('GET /v1/conversations: the numbers that texted the account, latest first', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app?.close());

  /** A text from `sender` to the tenant's phone, a second after the one before on the app's clock. */
  async function receive(t: Tenant, sender: string, body: string) {
    app.clock.advance(1000);
    const received = { sender, body, received_at: app.clock.now().toISOString() };
    expect((await app.fetch('/v1/device/inbound', json('POST', received, bearer(t.phone.token)))).status).toBe(201);
  }
  async function reply(t: Tenant, to: string, body: string) {
    app.clock.advance(1000);
    expect((await t.call('POST', '/v1/messages', { body, to: [to] })).status).toBe(202);
  }
  const list = async (t: Tenant, query = '') => {
    const res = await t.call('GET', `/v1/conversations${query}`);
    expect(res.status).toBe(200);
    return readJson(res);
  };

  it('lists one conversation per number, by its latest text either way, with its counts', async () => {
    const t = await sendingTenant(app);
    const other = await sendingTenant(app);
    await receive(t, '+14155550901', 'Table for two at 7?');
    await receive(t, '+14155550902', 'Is the shop open?');
    await reply(t, '+14155550901', 'Yes, see you at 7');
    await receive(t, '+14155550901', 'Great, thanks');
    await receive(t, '+14155550902', 'Hello?');
    // A number the account only sent to is no conversation; another account's are not listed.
    await reply(t, '+14155550903', 'Your order shipped');
    await receive(other, '+14155550904', 'Not yours');

    const { data, next_cursor } = await list(t);
    expect(next_cursor).toBeUndefined();
    expect(
      data.map((c: Record<string, unknown>) => ({
        contact: c.contact,
        last: (c.last_message as { body: string }).body,
        texts: c.text_count,
        received: c.received_count,
      })),
    ).toEqual([
      { contact: '+14155550902', last: 'Hello?', texts: 2, received: 2 },
      { contact: '+14155550901', last: 'Great, thanks', texts: 3, received: 2 },
    ]);
    expect(data[0].last_received_at).toBe(data[0].last_message.created_at);

    // A reply moves its conversation to the top.
    await reply(t, '+14155550902', 'Yes, open until six');
    const after = await list(t);
    expect(after.data.map((c: { contact: string }) => c.contact)).toEqual(['+14155550902', '+14155550901']);
    expect(after.data[0].last_message).toMatchObject({ direction: 'outbound', body: 'Yes, open until six' });
  });

  it('keeps the conversations whose number or any text holds the search, and pages by the latest text', async () => {
    const t = await sendingTenant(app);
    await receive(t, '+14155550911', 'Do you deliver to Springfield?');
    await receive(t, '+14155550912', 'Booking for Friday');
    await receive(t, '+14155550913', 'Hi');
    await receive(t, '+14155550911', 'Thanks');

    const byText = await list(t, '?q=springFIELD');
    expect(byText.data.map((c: { contact: string }) => c.contact)).toEqual(['+14155550911']);
    const byNumber = await list(t, `?q=${encodeURIComponent('550912')}`);
    expect(byNumber.data.map((c: { contact: string }) => c.contact)).toEqual(['+14155550912']);
    expect((await list(t, '?q=100%25')).data).toEqual([]);

    const first = await list(t, '?limit=2');
    expect(first.data.map((c: { contact: string }) => c.contact)).toEqual(['+14155550911', '+14155550913']);
    const second = await list(t, `?limit=2&cursor=${first.next_cursor}`);
    expect(second.data.map((c: { contact: string }) => c.contact)).toEqual(['+14155550912']);
    expect(second.next_cursor).toBeUndefined();
  });

  it('refuses what it cannot read with the field’s 422, and needs a key or session', async () => {
    const t = await sendingTenant(app);
    for (const [query, field] of [
      ['limit=0', 'query.limit'],
      ['limit=many', 'query.limit'],
      ['cursor=not-ours', 'query.cursor'],
      [`q=${'x'.repeat(201)}`, 'query.q'],
    ]) {
      const res = await t.call('GET', `/v1/conversations?${query}`);
      const body = await readJson(res);
      expect({ query, status: res.status }).toEqual({ query, status: 422 });
      expect(body).toMatchObject({ code: 'validation_failed', status: 422 });
      expect(body.errors.map((e: { field: string }) => e.field)).toEqual([field]);
    }
    expect((await app.fetch('/v1/conversations')).status).toBe(401);
  });
});
