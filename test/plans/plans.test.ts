import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, testClock, type TestApp } from '../support/app';
import { registerAccount } from '../support/accounts';
import { readJson } from '../support/http';

describe('plans and usage', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ clock: testClock(new Date('2026-11-15T12:00:00Z')) });
  });
  afterAll(() => app?.close());

  it('publishes the catalogue without credentials', async () => {
    const res = await app.fetch('/v1/plans');
    expect(res.status).toBe(200);
    const { data } = await readJson(res);
    expect(data.map((p: { id: string }) => p.id)).toEqual(['free', 'pro', 'business']);
    expect(data[0]).toEqual({
      id: 'free',
      name: 'Free',
      active: true,
      batch_limit: 10,
      daily_limit: 50,
      device_limit: 1,
      monthly_limit: 500,
      webhook_limit: 2,
      monthly_price_cents: 0,
      yearly_price_cents: 0,
    });
    expect(data[1]).toMatchObject({
      daily_limit: 1000,
      monthly_limit: 20000,
      batch_limit: 500,
      device_limit: 5,
      webhook_limit: 10,
    });
    expect(data[2]).toMatchObject({
      daily_limit: 10000,
      monthly_limit: 300000,
      batch_limit: 5000,
      device_limit: 50,
      webhook_limit: 50,
    });
  });

  const admitConcurrently = (userId: string, attempts: number) =>
    Promise.allSettled(
      Array.from({ length: attempts }, () =>
        app.orm.em.fork().transactional((tx) => app.services.plans.admitSends(tx, userId, 1)),
      ),
    );
  const refusalCodes = (results: PromiseSettledResult<unknown>[]) =>
    new Set(results.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => r.reason.code));

  it('admits exactly the daily allowance under 60 concurrent sends', async () => {
    const account = await registerAccount(app);
    const results = await admitConcurrently(account.userId, 60);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(50);
    expect(refusalCodes(results)).toEqual(new Set(['plan_limit_daily']));
    expect((await app.services.plans.usage(account.userId)).sentToday).toBe(50);
  });

  it('admits exactly the monthly remainder, counting earlier days of the UTC month', async () => {
    const account = await registerAccount(app);
    // The test clock stands on the 15th: 470 were sent earlier this month, 30 of the free plan's 500 remain.
    await app.services.plans.setUsage(account.userId, {
      sentToday: 0,
      sentThisMonth: 470,
      receivedToday: 0,
      receivedThisMonth: 0,
    });
    const results = await admitConcurrently(account.userId, 45);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(30);
    expect(refusalCodes(results)).toEqual(new Set(['plan_limit_monthly']));
    expect(await app.services.plans.usage(account.userId)).toMatchObject({ sentToday: 30, sentThisMonth: 500 });
  });

  it('counts a new UTC day from zero, and a new month from zero', async () => {
    const account = await registerAccount(app);
    const admit = (n: number) =>
      app.orm.em.fork().transactional((tx) => app.services.plans.admitSends(tx, account.userId, n));
    try {
      app.clock.set(new Date('2026-11-30T23:59:00Z'));
      await admit(7);
      app.clock.set(new Date('2026-12-01T00:01:00Z'));
      expect(await app.services.plans.usage(account.userId)).toMatchObject({ sentToday: 0, sentThisMonth: 0 });
      await admit(2);
      expect(await app.services.plans.usage(account.userId)).toMatchObject({ sentToday: 2, sentThisMonth: 2 });
      app.clock.set(new Date('2026-12-02T08:00:00Z'));
      await admit(1);
      expect(await app.services.plans.usage(account.userId)).toMatchObject({ sentToday: 1, sentThisMonth: 3 });
    } finally {
      app.clock.set(new Date('2026-11-15T12:00:00Z'));
    }
  });

  it('refuses a batch over the plan batch limit before counting anything', async () => {
    const account = await registerAccount(app);
    await expect(
      app.orm.em.fork().transactional((tx) => app.services.plans.admitSends(tx, account.userId, 11)),
    ).rejects.toMatchObject({
      code: 'plan_limit_batch',
      status: 429,
    });
    expect((await app.services.plans.usage(account.userId)).sentToday).toBe(0);
  });

  it('reports usage per UTC day and month in /me', async () => {
    const account = await registerAccount(app);
    await app.orm.em.fork().transactional(async (tx) => {
      await app.services.plans.admitSends(tx, account.userId, 3);
      await app.services.plans.countReceived(tx, account.userId, 2);
    });
    const { usage } = await readJson(await app.fetch('/v1/auth/me', { headers: { cookie: account.cookie } }));
    expect(usage).toEqual({ sent_today: 3, sent_this_month: 3, received_today: 2, received_this_month: 2 });
  });
});
