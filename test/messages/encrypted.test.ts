import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { startTestApp, type TestApp } from '../support/app';
import { readJson } from '../support/http';
import { eventsOf as storedEvents } from '../support/factories';
import { bearer } from '../devices/helpers';
import { decrypt, encrypt } from '../compat/smsgate/encryption';
import { sendingTenant } from './helpers';
import { columnsHolding } from './stored-text';

// POST /v1/messages with `encrypted`: the body and numbers are ciphertext in the SMSGate app's format,
// stored and handed out as given; the owner's phone decrypts them. No workflow runs here.
describe('encrypted sends on /v1', () => {
  let app: TestApp;
  const passphrase = 'correct horse battery staple';

  beforeAll(async () => {
    app = await startTestApp({
      temporal: new Client({ connection: Connection.lazy({ address: '127.0.0.1:1', connectTimeout: 100 }) }),
    });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('stores and hands out only ciphertext; the phone decrypts the text and the number', async () => {
    const { account, call, phone } = await sendingTenant(app);
    const text = `Encrypted hello ${Date.now()}`;
    const number = '+14155550342';
    const body = encrypt(passphrase, text);
    const to = [encrypt(passphrase, number), encrypt(passphrase, '+14155550343')];
    const res = await call('POST', '/v1/messages', { encrypted: true, body, to: [...to, to[0]] });
    expect(res.status).toBe(202);
    const { batch, message_ids } = await readJson(res);
    // Exact repeats only are dropped: the same number encrypts differently each time.
    expect(message_ids).toHaveLength(2);
    expect(batch).toMatchObject({
      encrypted: true,
      body,
      recipient_count: 2,
      recipient_preview: '2 encrypted recipients',
      segments: 1,
      encoding: 'unknown',
    });
    const detail = await readJson(await call('GET', `/v1/batches/${batch.id}`));
    expect(detail.messages.map((m: { recipient: string; encrypted: boolean }) => [m.recipient, m.encrypted])).toEqual([
      [to[0], true],
      [to[1], true],
    ]);

    // The phone gets the ciphertext and the flag, and reads it with the owner's passphrase.
    const outbox = await readJson(await app.fetch('/v1/device/outbox', { headers: bearer(phone.token) }));
    const rows = outbox.data.filter((row: { batch_id: string }) => row.batch_id === batch.id);
    expect(rows.map((row: { encrypted: boolean; body: string }) => [row.encrypted, row.body])).toEqual([
      [true, body],
      [true, body],
    ]);
    expect(decrypt(passphrase, rows[0].body)).toBe(text);
    expect(decrypt(passphrase, rows[0].to)).toBe(number);

    // The phone reports what it sent; the events (and so the webhooks) carry the ciphertext as given.
    const sent = await app.fetch(`/v1/device/messages/${message_ids[0]}/status`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(phone.token) },
      body: JSON.stringify({ status: 'sent' }),
    });
    expect(sent.status).toBe(200);
    const events = await storedEvents(app.orm, { userId: account.userId });
    expect(events.map((event) => event.name)).toContain('message.sent');
    for (const event of events) expect(event.data).toMatchObject({ encrypted: true, body, recipient: to[0] });

    // Nowhere in the database is the text or the number readable; the ciphertext is where it belongs.
    expect(await columnsHolding(app, text, account.userId)).toEqual([]);
    expect(await columnsHolding(app, number, account.userId)).toEqual([]);
    expect(await columnsHolding(app, body, account.userId)).toEqual(expect.arrayContaining(['batches.body', 'messages.body']));
    expect(await columnsHolding(app, to[0], account.userId)).toContain('messages.recipient');
  });

  it('searches no ciphertext (q= and its index are for readable text)', async () => {
    const { call } = await sendingTenant(app);
    const body = encrypt(passphrase, 'Search me');
    const plain = await call('POST', '/v1/messages', { body: 'Plain searchable text', to: ['+14155550350'] });
    expect(plain.status).toBe(202);
    const res = await call('POST', '/v1/messages', {
      encrypted: true,
      body,
      to: [encrypt(passphrase, '+14155550351')],
    });
    expect(res.status).toBe(202);
    const search = async (q: string) =>
      (await readJson(await call('GET', `/v1/messages?q=${encodeURIComponent(q)}`))).data.map(
        (m: { body: string }) => m.body,
      );
    expect(await search('searchable')).toEqual(['Plain searchable text']);
    expect(await search(body.slice(-20, -4))).toEqual([]);
    expect(await search('aes-256-cbc')).toEqual([]);
  });

  it('refuses plain text in an encrypted send, and ciphertext-length text in a plain one (422, nothing written)', async () => {
    const { call } = await sendingTenant(app);
    const cipher = encrypt(passphrase, 'x');
    const plainBody = await call('POST', '/v1/messages', {
      encrypted: true,
      body: 'I am not encrypted',
      to: [encrypt(passphrase, '+14155550360')],
    });
    expect(plainBody.status).toBe(422);
    expect((await readJson(plainBody)).errors.map((e: { field: string }) => e.field)).toEqual(['body.body']);
    const plainNumber = await call('POST', '/v1/messages', { encrypted: true, body: cipher, to: ['+14155550361'] });
    expect(plainNumber.status).toBe(422);
    expect((await readJson(plainNumber)).errors.map((e: { field: string }) => e.field)).toEqual(['body.to[0]']);
    const long = await call('POST', '/v1/messages', { body: 'x'.repeat(1601), to: ['+14155550362'] });
    expect(long.status).toBe(422);
    expect((await readJson(long)).errors).toEqual([
      { field: 'body.body', message: 'body must be at most 1600 characters' },
    ]);
    expect((await readJson(await call('GET', '/v1/batches'))).data).toEqual([]);
  });
});
