import type { TestApp } from '../support/app';
import { createKey, json, registerAccount } from '../support/accounts';
import { pairPhone } from '../devices/helpers';

/** A verified account on a plan with room, an all-scopes key, one paired phone, and a caller with the key. */
export async function sendingTenant(app: TestApp, options: { plan?: string; verified?: boolean } = {}) {
  const account = await registerAccount(app, { verified: options.verified ?? true, plan: options.plan ?? 'pro' });
  const key = await createKey(app, account);
  const phone = await pairPhone(app, key);
  const call = (method: string, path: string, body?: unknown) => app.fetch(path, json(method, body, { 'x-api-key': key }));
  return { account, key, phone, call };
}

/** The events an account's changes recorded: storage is where the webhooks' outbox is seen. */
export const eventsOf = (app: TestApp, userId: string) =>
  app.orm.em
    .fork()
    .execute<{ name: string; message_id: string }[]>(
      'select name, message_id from events where user_id = ? order by created_at, name',
      [userId],
    );
