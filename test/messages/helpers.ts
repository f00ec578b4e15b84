import type { TestApp } from '../support/app';
import { createKey, json, registerAccount } from '../support/accounts';
import { pairPhone } from '../devices/helpers';
import { eventsOf as storedEvents } from '../support/factories';

/** A verified account on a plan with room, an all-scopes key, one paired phone, and a caller with the key. */
export async function sendingTenant(app: TestApp, options: { plan?: string; verified?: boolean } = {}) {
  const account = await registerAccount(app, { verified: options.verified ?? true, plan: options.plan ?? 'pro' });
  const key = await createKey(app, account);
  const phone = await pairPhone(app, key);
  const call = (method: string, path: string, body?: unknown) => app.fetch(path, json(method, body, { 'x-api-key': key }));
  return { account, key, phone, call };
}

/** The events an account's changes recorded: storage is where the webhooks' outbox is seen. */
export const eventsOf = async (app: TestApp, userId: string) =>
  (await storedEvents(app.orm, { userId })).map((e) => ({ name: e.name, message_id: e.messageId }));
