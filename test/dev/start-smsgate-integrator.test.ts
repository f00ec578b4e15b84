import type { ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { WebHookEventType } from 'android-sms-gateway';
import { json } from '../support/accounts';
import { readJson } from '../support/http';
import { freeStartPorts, signUpFromLog, spawnStart, waitFor } from '../support/start-command';
import { startReceiver, type Receiver } from '../webhooks/receiver';
import { createFakeApp, statePatch, type PendingMessage } from '../compat/smsgate/fake-app';
import { MOBILE_API } from '../compat/smsgate/helpers';
import { integratorClient, smsgateSignatureValid } from '../compat/smsgate/integrator-client';

// SMSGate's published npm client against a fresh `npm start` (embedded Postgres, the Temporal dev
// server, the api and the worker): an integration written for SMSGate's server, with only its base
// URL and credentials changed, sends through a paired SMSGate app and hears back on its webhook.

const root = path.resolve(__dirname, '..', '..');
const dataDir = path.join(root, '.test-data', `start-smsgate-integrator-${process.pid}`);

describe('SMSGate’s npm client against a fresh npm start', () => {
  let child: ChildProcess | undefined;
  let receiver: Receiver | undefined;

  afterAll(async () => {
    await receiver?.close();
    if (child && child.exitCode === null) child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('sends, reads the state until delivered and receives the signed sms:delivered', async () => {
    mkdirSync(dataDir, { recursive: true });
    const ports = await freeStartPorts();
    const publicUrl = `http://127.0.0.1:${ports.api}`;
    const started = spawnStart({ dataDir, ports }, { PUBLIC_URL: publicUrl, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
    child = started.child;
    const output = started.output;
    await waitFor(`${publicUrl}/readyz`, child, 120_000).catch((error) => {
      throw new Error(`${error.message}\n${output()}`);
    });
    const api = (pathname: string, init: RequestInit) => fetch(`${publicUrl}${pathname}`, init);

    // An account verified with the code from the log, and an API key: the client's password.
    const { email, key } = await signUpFromLog(publicUrl, output, 'integrator');

    // The SMSGate app paired with a pairing code as its private token.
    const { code } = await readJson(await api('/v1/devices/pairing-codes', json('POST', undefined, { 'x-api-key': key })));
    const phone = createFakeApp({ apiUrl: `${publicUrl}${MOBILE_API}` });
    const registration = await phone.register(code);
    expect(registration.status).toBe(201);
    phone.state.registration = await readJson(registration);

    const client = integratorClient(publicUrl, key, email);
    expect(await client.getHealth()).toMatchObject({ status: 'pass' });
    receiver = await startReceiver();
    await client.registerWebhook({ url: receiver.url, event: WebHookEventType.SmsDelivered });
    const signingKey = 'a-signing-key-of-my-choosing';
    await client.patchSettings({ webhooks: { signingKey } });

    const state = await client.send({ message: 'Hello from an SMSGate integration', phoneNumbers: ['+14155550160'] });
    expect(state.state).toBe('Pending');

    const [message] = (await readJson(await phone.getMessages('fifo'))) as PendingMessage[];
    const now = new Date();
    expect((await phone.patchMessages([statePatch(message, 'Delivered', { Processed: now, Sent: now, Delivered: now })])).status).toBe(204);
    await expect.poll(async () => (await client.getState(state.id)).state).toBe('Delivered');

    await expect.poll(() => receiver!.requests.length, { timeout: 30_000 }).toBe(1);
    const [call] = receiver.requests;
    expect(smsgateSignatureValid(call, signingKey)).toBe(true);
    expect(JSON.parse(call.raw)).toMatchObject({
      event: 'sms:delivered',
      deviceId: phone.state.registration!.id,
      payload: { messageId: state.id, phoneNumber: '+14155550160' },
    });
  });
});
