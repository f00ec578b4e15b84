import { randomUUID } from 'node:crypto';
import type { TestApp } from '../support/app';
import { createKey, json, registerAccount, type Account } from '../support/accounts';
import { readJson } from '../support/http';

export interface PairedPhone {
  id: string;
  token: string;
  hardwareKey: string;
  device: any;
}

/** A pairing code created with the key (scope devices). */
export async function createPairingCode(app: TestApp, key: string): Promise<{ code: string; id: string }> {
  const res = await app.fetch('/v1/devices/pairing-codes', json('POST', undefined, { 'x-api-key': key }));
  if (res.status !== 201) throw new Error(`pairing code failed: ${res.status} ${await res.text()}`);
  return readJson(res);
}

/** Pairs a phone through the API (a new hardware key unless given) and returns its token. */
export async function pairPhone(app: TestApp, key: string, extra: Record<string, unknown> = {}): Promise<PairedPhone> {
  const { code } = await createPairingCode(app, key);
  const hardwareKey = (extra.hardware_key as string) ?? `hw-${randomUUID()}`;
  const res = await app.fetch(
    '/v1/device/pair',
    json('POST', { code, hardware_key: hardwareKey, model: 'Pixel 8', manufacturer: 'Google', ...extra }),
  );
  if (res.status !== 201) throw new Error(`pairing failed: ${res.status} ${await res.text()}`);
  const body = await readJson(res);
  return { id: body.device.id, token: body.device_token, hardwareKey, device: body.device };
}

/** An account with an all-scopes key. */
export async function accountWithKey(app: TestApp, plan?: string): Promise<{ account: Account; key: string }> {
  const account = await registerAccount(app, plan ? { plan } : {});
  return { account, key: await createKey(app, account) };
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** What the phone is handed by GET /v1/device/outbox. */
export const fetchOutbox = async (app: TestApp, phone: PairedPhone) =>
  (await readJson(await app.fetch('/v1/device/outbox', { headers: bearer(phone.token) }))).data as { id: string }[];

/**
 * A send of four texts to a phone paced at two a minute, fetched after ten minutes away (all four
 * due by then): the phone is handed two and reports them sent, so its minute is spent with two waiting.
 */
export async function spendPace(app: TestApp, key: string, phone: PairedPhone, to: string[]): Promise<void> {
  const sent = await app.fetch(
    '/v1/messages',
    json('POST', { body: 'Paced', to, device_id: phone.id }, { 'x-api-key': key }),
  );
  if (sent.status !== 202) throw new Error(`send failed: ${sent.status} ${await sent.text()}`);
  app.clock.advance(10 * 60_000);
  const first = await fetchOutbox(app, phone);
  if (first.length !== 2) throw new Error(`the pace of two handed out ${first.length}`);
  const reports = first.map(({ id }) => ({ id, status: 'sent' }));
  const reported = await app.fetch('/v1/device/messages/status', json('POST', { reports }, bearer(phone.token)));
  if (reported.status !== 200) throw new Error(`reports failed: ${reported.status}`);
}
