import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECIPIENTS_MAX } from '../../src/messages/messages.schemas';
import { startTestApp, type TestApp } from '../support/app';
import { readJson } from '../support/http';
import { sendingTenant } from './helpers';

// A refused send gets the same answer whatever its size: an invalid request is refused as invalid
// (422, validation_failed) before the account's unverified email (403) or its plan's batch limit (429).

const numbers = (n: number) => Array.from({ length: n }, (_, i) => `+1415${2_000_000 + i}`);

describe('the order of a send’s refusals', () => {
  let app: TestApp;
  let unverified: Awaited<ReturnType<typeof sendingTenant>>;
  let free: Awaited<ReturnType<typeof sendingTenant>>;

  beforeAll(async () => {
    app = await startTestApp({ env: { BODY_LIMIT: '2mb' } });
    unverified = await sendingTenant(app, { verified: false, plan: 'business' });
    // Free allows 10 recipients a send: every size below is over its batch limit.
    free = await sendingTenant(app, { plan: 'free' });
  });
  afterAll(() => app?.close());

  const past = new Date(Date.now() - 60_000).toISOString();

  for (const size of [11, 150, RECIPIENTS_MAX]) {
    it(`refuses an invalid send of ${size} entries as invalid before the unverified email or the batch limit`, async () => {
      for (const { call } of [unverified, free]) {
        const badNumber = await call('POST', '/v1/messages', { body: 'x', to: [...numbers(size - 1), 'nope'] });
        expect(badNumber.status).toBe(422);
        expect(await readJson(badNumber)).toMatchObject({
          code: 'validation_failed',
          errors: [{ field: `body.to[${size - 1}]`, message: expect.any(String) }],
        });

        const badTime = await call('POST', '/v1/messages', { body: 'x', to: numbers(size), scheduled_at: past });
        expect(badTime.status).toBe(422);
        expect(await readJson(badTime)).toMatchObject({
          code: 'validation_failed',
          errors: [{ field: 'body.scheduled_at', message: expect.any(String) }],
        });
      }

      const blocked = await unverified.call('POST', '/v1/messages', { body: 'x', to: numbers(size) });
      expect(blocked.status).toBe(403);
      expect(await readJson(blocked)).toMatchObject({ code: 'email_unverified' });
      const overBatch = await free.call('POST', '/v1/messages', { body: 'x', to: numbers(size) });
      expect(overBatch.status).toBe(429);
      expect(await readJson(overBatch)).toMatchObject({ code: 'plan_limit_batch' });
    });
  }

  it('wrote no message for any of them', async () => {
    const counted = await app.orm.em
      .fork()
      .execute('select count(*) as n from messages where user_id in (?, ?)', [
        unverified.account.userId,
        free.account.userId,
      ]);
    expect(Number(counted[0].n)).toBe(0);
  });
});
