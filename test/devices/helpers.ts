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
