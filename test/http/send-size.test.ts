import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECIPIENTS_MAX } from '../../src/messages/messages.schemas';
import { startTestApp, type TestApp } from '../support/app';
import { createKey, json, registerAccount } from '../support/accounts';
import { readJson } from '../support/http';
import { pairPhone } from '../devices/helpers';

// A send of more than RECIPIENTS_MAX entries is refused before anything is done per recipient; a
// smaller one is read, and refused as invalid before any limit of the account is asked (the order is
// test/messages/refusal-order.test.ts); the answer lists at most 100 invalid numbers and counts the
// rest, and stays short. The time this takes is a bench line (bench/send-size.ts).

const numbers = (n: number, from = 2_000_000) => Array.from({ length: n }, (_, i) => `+1415${from + i}`);

describe('the size of a send', () => {
  let app: TestApp;
  let business: string;
  let free: string;
  let freeUser: string;
  let unverified: string;

  beforeAll(async () => {
    app = await startTestApp({ env: { BODY_LIMIT: '2mb' } });
    const big = await registerAccount(app, { verified: true, plan: 'business' });
    business = await createKey(app, big);
    await pairPhone(app, business);
    const small = await registerAccount(app, { verified: true, plan: 'free' });
    freeUser = small.userId;
    free = await createKey(app, small);
    await pairPhone(app, free);
    unverified = await createKey(app, await registerAccount(app, { plan: 'business' }));
  });
  afterAll(() => app?.close());

  const send = (key: string, to: unknown[]) =>
    app.fetch('/v1/messages', json('POST', { body: 'Hello', to }, { 'x-api-key': key }));
  const messagesOf = async (userId: string) =>
    Number((await app.orm.em.fork().execute('select count(*) as n from messages where user_id = ?', [userId]))[0].n);

  it('refuses more recipients than the largest plan allows with plan_limit_batch and a short answer', async () => {
    const res = await send(business, numbers(RECIPIENTS_MAX));
    const text = await res.text();
    expect(res.status).toBe(429);
    expect(JSON.parse(text)).toEqual({
      code: 'plan_limit_batch',
      message: 'A send may have at most 5000 recipients on the Business plan.',
      status: 429,
    });
    expect(text.length).toBeLessThan(10_000);
  });

  it('refuses a large send of an unverified account with a short answer', async () => {
    const res = await send(unverified, numbers(RECIPIENTS_MAX));
    const text = await res.text();
    expect(res.status).toBe(403);
    expect(JSON.parse(text)).toMatchObject({ code: 'email_unverified' });
    expect(text.length).toBeLessThan(10_000);
  });

  it('does not count exact repeats against the limit, and refuses more than RECIPIENTS_MAX entries', async () => {
    const repeated = Array.from({ length: 200 }, (_, i) => numbers(3)[i % 3]);
    const accepted = await send(free, repeated);
    expect(accepted.status).toBe(202);
    expect((await readJson(accepted)).message_ids).toHaveLength(3);

    const tooMany = await send(
      business,
      Array.from({ length: RECIPIENTS_MAX + 1 }, () => '+14155550100'),
    );
    expect(tooMany.status).toBe(422);
    expect(await readJson(tooMany)).toMatchObject({
      code: 'validation_failed',
      errors: [{ field: 'body.to', message: `to must have at most ${RECIPIENTS_MAX} entries` }],
    });
  });

  it('refuses more than RECIPIENTS_MAX distinct recipients as invalid (422) before any plan limit (429)', async () => {
    const before = await messagesOf(freeUser);
    for (const [key, to] of [
      [business, numbers(RECIPIENTS_MAX + 1)],
      [business, numbers(60_000)],
      [free, numbers(RECIPIENTS_MAX + 1)],
      [unverified, numbers(RECIPIENTS_MAX + 1)],
    ] as const) {
      const res = await send(key, to);
      const text = await res.text();
      expect(res.status).toBe(422);
      expect(JSON.parse(text)).toEqual({
        code: 'validation_failed',
        message: expect.any(String),
        status: 422,
        errors: [{ field: 'body.to', message: `to must have at most ${RECIPIENTS_MAX} entries` }],
      });
      expect(text.length).toBeLessThan(10_000);
    }
    expect(await messagesOf(freeUser)).toBe(before);
  });

  it('lists the first 100 invalid numbers and counts them all', async () => {
    const to = [...numbers(10), ...Array.from({ length: 4_000 }, (_, i) => `+1 555 nope ${i}`)];
    const res = await send(business, to);
    const text = await res.text();
    expect(res.status).toBe(422);
    const body = JSON.parse(text);
    expect(body.message).toBe('The request is invalid: 4000 problems, the first 100 listed.');
    expect(body.errors).toHaveLength(100);
    expect(body.errors[0]).toEqual({
      field: 'body.to[10]',
      message: expect.stringMatching(/^to\[10\] is not a valid/),
    });
    expect(text.length).toBeLessThan(10_000);
  });

  it('allows no seeded plan a batch limit above RECIPIENTS_MAX', async () => {
    const [{ largest }] = await app.orm.em
      .fork()
      .execute("select max(batch_limit) as largest from plans where id in ('free', 'pro', 'business')");
    expect(Number(largest)).toBeLessThanOrEqual(RECIPIENTS_MAX);
  });
});
