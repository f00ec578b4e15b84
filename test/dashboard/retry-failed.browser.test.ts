/// <reference lib="dom" />
import { describe, expect, it } from 'vitest';
import { createKey, json, PASSWORD } from '../support/accounts';
import { readJson } from '../support/http';
import { bearer, pairPhone } from '../devices/helpers';
import { onApp, shown, signInOn } from './browser';
import { appSceneHooks } from './scene-hooks';
import { expectAxeCleanEverywhere } from './axe-walk';

// A finished send with texts the phone could not send, beside a cancelled one and one to an
// opted-out number, in a real Chromium against the real API and Postgres: its page offers to retry
// exactly the failed texts, the retry is a new send linked to it, and it links back.

describe('retrying a send’s failed texts', () => {
  const { contexts, started } = appSceneHooks({ plan: 'pro' });

  it('offers “Retry 2 failed texts”, sends only those again, and links the two sends', async () => {
    const { app, account } = started();
    const key = await createKey(app, account);
    const phone = await pairPhone(app, key);
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await app.fetch(path, json(method, body, { 'x-api-key': key }));
      expect(res.status, `${method} ${path}`).toBeLessThan(300);
      return readJson(res);
    };
    await call('POST', '/v1/opt-outs', { phone_number: '+14155550705' });
    const sent = await call('POST', '/v1/messages', {
      body: 'Your order is ready',
      to: ['+14155550701', '+14155550702', '+14155550703', '+14155550704', '+14155550705'],
    });
    const ids: string[] = sent.message_ids;
    await call('POST', `/v1/messages/${ids[3]}/cancel`);
    await app.fetch('/v1/device/outbox', { headers: bearer(phone.token) });
    const reports = [
      { id: ids[0], status: 'delivered' },
      { id: ids[1], status: 'failed', error_code: 'RESULT_ERROR_NO_SERVICE' },
      { id: ids[2], status: 'failed', error_code: 'RESULT_ERROR_GENERIC_FAILURE' },
    ];
    expect((await app.fetch('/v1/device/messages/status', json('POST', { reports }, bearer(phone.token)))).status).toBe(
      200,
    );

    const page = await signInOn(await contexts.page(onApp(app)), account.email, PASSWORD);
    await page.goto(`/batches/${sent.batch.id}`);
    const retry = page.getByRole('button', { name: 'Retry 2 failed texts' });
    await shown(retry);
    expect(await page.getByTestId('batch-counts').textContent()).toContain('1 cancelled · 1 opted out');
    await expectAxeCleanEverywhere(page, 'retry-failed-offered');

    await retry.click();
    const dialog = page.getByRole('dialog', { name: 'Retry 2 failed texts?' });
    await shown(dialog);
    await expectAxeCleanEverywhere(page, 'retry-failed-confirm');
    await dialog.getByRole('button', { name: 'Retry' }).click();
    await page.waitForURL(
      (url) => /\/batches\/[0-9a-f-]{36}$/.test(url.pathname) && !url.pathname.endsWith(sent.batch.id),
    );
    const retryId = page.url().split('/').pop()!;
    const made = await call('GET', `/v1/batches/${retryId}`);
    expect(made.batch).toMatchObject({ retry_of: sent.batch.id, body: 'Your order is ready', recipient_count: 2 });
    expect(made.messages.map((m: { recipient: string }) => m.recipient)).toEqual(['+14155550702', '+14155550703']);

    const back = page.getByRole('link', { name: 'Retries the failed texts of an earlier send' });
    await shown(back);
    await expectAxeCleanEverywhere(page, 'retry-failed-retry');
    await back.click();
    await page.waitForURL((url) => url.pathname.endsWith(sent.batch.id));
    await shown(page.getByRole('link', { name: 'Its failed texts were retried: see that send' }));
    // Retried once: the offer is gone, so the same texts cannot go out twice from here.
    expect(await page.getByRole('button', { name: /^Retry/ }).count()).toBe(0);
    expect((await call('GET', `/v1/batches/${sent.batch.id}`)).batch.retried_by).toBe(retryId);
    expect(contexts.consoleErrors()).toEqual([]);
  }, 180_000);
});
