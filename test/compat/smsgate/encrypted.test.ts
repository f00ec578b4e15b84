import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebHookEventType, type Message } from 'android-sms-gateway';
import type { TestApp } from '../../support/app';
import { readJson } from '../../support/http';
import type { WorkflowStack } from '../../support/temporal';
import { startReceiver, type Receiver } from '../../webhooks/receiver';
import { columnsHolding } from '../../messages/stored-text';
import { encrypt } from './encryption';
import { statePatch, textToSend, type PendingMessage } from './fake-app';
import { registeredApp, startSmsGateStack, tenant } from './helpers';
import { INTEGRATOR_API, integratorClient } from './integrator-client';

// End-to-end encrypted messages (isEncrypted): an integrator's client encrypts the text and the
// numbers with the owner's passphrase; we store and hand out the ciphertext; the SMSGate app (the
// fake app) decrypts it with the same passphrase and sends the text. Through the published npm
// client (which passes isEncrypted as given: it has no Encryptor) and the Python one (its Encryptor).

const run = promisify(execFile);
const here = path.join(__dirname, 'python');
// ASCII: the Python client's PBKDF2 encodes it as Latin-1, Java's PBEKeySpec as its chars.
const passphrase = 'owner passphrase 42';

describe('SMSGate’s encrypted messages, from the integrator’s client to the app', () => {
  let stack: WorkflowStack;
  let app: TestApp;
  let receiver: Receiver;

  beforeAll(async () => {
    stack = await startSmsGateStack('smsgate-encrypted', { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
    ({ app } = stack);
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await stack?.close();
  });

  it('npm client: ciphertext stored, read back and in the webhooks as given; the app decrypts and sends the text', async () => {
    const { key, account } = await tenant(app);
    const phone = await registeredApp(app, key);
    const client = integratorClient(app.url, key);
    await client.registerWebhook({ url: receiver.url, event: WebHookEventType.SmsSent });

    const text = `Your secret code is ${Date.now() % 1_000_000}`;
    const numbers = ['+14155550401', '+14155550402'];
    const message = encrypt(passphrase, text);
    const phoneNumbers = numbers.map((number) => encrypt(passphrase, number));
    // The npm client's Message type has no isEncrypted; the field goes through as written.
    const state = await client.send({ id: 'secret-1', message, phoneNumbers, isEncrypted: true } as Message);
    expect(state).toMatchObject({
      id: 'secret-1',
      isEncrypted: true,
      recipients: phoneNumbers.map((phoneNumber) => ({ phoneNumber, state: 'Pending' })),
    });

    // The app gets the ciphertext and isEncrypted, decrypts with its passphrase and sends the text.
    const pending = (await readJson(await phone.getMessages('fifo'))) as PendingMessage[];
    expect(pending.map((m) => [m.isEncrypted, m.textMessage?.text, m.phoneNumbers])).toEqual(
      phoneNumbers.map((number) => [true, message, [number]]),
    );
    expect(pending.map((m) => textToSend(m, passphrase))).toEqual(
      numbers.map((number) => ({ text, phoneNumbers: [number] })),
    );
    const at = (s: number) => new Date(app.clock.now().getTime() + s * 1000);
    for (const m of pending) {
      expect((await phone.patchMessages([statePatch(m, 'Sent', { Processed: at(1), Sent: at(2) })])).status).toBe(204);
    }

    // The integrator reads back the ciphertext as given, flagged (the text on the list, includeContent).
    expect(await client.getState('secret-1')).toMatchObject({
      isEncrypted: true,
      state: 'Sent',
      recipients: phoneNumbers.map((phoneNumber) => ({ phoneNumber, state: 'Sent' })),
    });
    const listed = (await readJson(
      await app.fetch(`${INTEGRATOR_API}/messages?includeContent=true`, {
        headers: { Authorization: `Bearer ${key}` },
      }),
    )) as Array<Record<string, unknown>>;
    expect(listed.find((m) => m.id === 'secret-1')).toMatchObject({
      isEncrypted: true,
      textMessage: { text: message },
    });

    // sms:sent webhooks name the ciphertext number, never the number itself.
    await expect
      .poll(() => receiver.requests.filter((r) => r.raw.includes('secret-1')).length, { timeout: 20_000 })
      .toBe(2);
    const payloads = receiver.requests
      .filter((r) => r.raw.includes('secret-1'))
      .map((r) => (JSON.parse(r.raw) as { payload: { phoneNumber: string } }).payload.phoneNumber);
    expect(payloads.sort()).toEqual([...phoneNumbers].sort());

    // Not one text column of the database holds the text or a number.
    expect(await columnsHolding(app, text, account.userId)).toEqual([]);
    for (const number of numbers) expect(await columnsHolding(app, number, account.userId)).toEqual([]);
    expect(await columnsHolding(app, message, account.userId)).toEqual(expect.arrayContaining(['batches.body', 'messages.body']));
  });

  it('Python client: its Encryptor encrypts; we keep ciphertext; the app decrypts what it wrote', async () => {
    const python = (await run(path.join(here, 'install.sh'), [], { timeout: 170_000 })).stdout.trim();
    const { key, account } = await tenant(app);
    const phone = await registeredApp(app, key);
    const text = `Python secret ${Date.now() % 1_000_000}`;
    const number = '+14155550411';
    const { stdout } = await run(
      python,
      [path.join(here, 'encrypted.py'), `${app.url}${INTEGRATOR_API}`, key, passphrase, text, number],
      { timeout: 60_000 },
    );
    // The client decrypts the numbers it reads back; without its Encryptor it refuses to.
    expect(JSON.parse(stdout)).toEqual({
      sent: { id: 'py-secret', state: 'Pending', recipients: [number] },
      state: { id: 'py-secret', recipients: [number] },
      without_encryptor: 'Message is encrypted but encryptor is not set',
    });
    const [pending] = (await readJson(await phone.getMessages('fifo'))) as PendingMessage[];
    expect(pending.isEncrypted).toBe(true);
    expect(pending.textMessage?.text).toMatch(/^\$aes-256-cbc\/pbkdf2-sha1\$i=75000\$/);
    expect(textToSend(pending, passphrase)).toEqual({ text, phoneNumbers: [number] });
    expect(await columnsHolding(app, text, account.userId)).toEqual([]);
    expect(await columnsHolding(app, number, account.userId)).toEqual([]);
  }, 240_000);
});
