import type { ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { WebHookEventType } from 'android-sms-gateway';
import { json } from '../support/accounts';
import { readJson } from '../support/http';
import { freeStartPorts, signUpFromLog, spawnStart, waitFor } from '../support/start-command';
import { startReceiver, type Receiver } from '../webhooks/receiver';
import { createFakeApp, smsReceived, statePatch, type PendingMessage } from '../compat/smsgate/fake-app';
import { MOBILE_API } from '../compat/smsgate/helpers';
import { integratorClient, refusal, smsgateSignatureValid } from '../compat/smsgate/integrator-client';

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

  it('runs every public method of the client: sends until delivered, signs, then the rest', async () => {
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
    const { code } = await readJson(
      await api('/v1/devices/pairing-codes', json('POST', undefined, { 'x-api-key': key })),
    );
    const phone = createFakeApp({ apiUrl: `${publicUrl}${MOBILE_API}` });
    const registration = await phone.register(code);
    expect(registration.status).toBe(201);
    phone.state.registration = await readJson(registration);
    expect((await phone.getSettings()).status).toBe(200);

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
    expect(
      (await phone.patchMessages([statePatch(message, 'Delivered', { Processed: now, Sent: now, Delivered: now })]))
        .status,
    ).toBe(204);
    await expect.poll(async () => (await client.getState(state.id)).state).toBe('Delivered');

    await expect.poll(() => receiver!.requests.length, { timeout: 30_000 }).toBe(1);
    const [call] = receiver.requests;
    expect(smsgateSignatureValid(call, signingKey)).toBe(true);
    expect(JSON.parse(call.raw)).toMatchObject({
      event: 'sms:delivered',
      deviceId: phone.state.registration!.id,
      payload: { messageId: state.id, phoneNumber: '+14155550160' },
    });

    // The rest of the client's public methods, each answered (or refused as documented).
    const deviceId = phone.state.registration!.id;
    expect((await client.getDevices()).map((d) => d.id)).toEqual([deviceId]);
    const hooks = await client.getWebhooks();
    expect(hooks.map((w) => w.event)).toEqual(['sms:delivered']);
    await client.updateSettings({ messages: { sendIntervalMin: 2, sendIntervalMax: 4 } });
    const settings = (await client.getSettings()) as unknown as { messages: Record<string, unknown> };
    expect(settings.messages).toMatchObject({ send_interval_min: 2, send_interval_max: 4 });
    expect(JSON.stringify(settings)).not.toContain(signingKey);
    const refused = await refusal(client.updateSettings({ encryption: { passphrase: 'secret' } }));
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain('encryption.passphrase');

    await client.registerWebhook({ url: receiver.url, event: WebHookEventType.SmsReceived });
    const phoneHooks = (await readJson(await phone.getWebhooks())) as { id: string; url: string; event: string }[];
    const receivedHook = phoneHooks.find((hook) => hook.event === 'sms:received')!;
    const at = new Date(Date.now() - 60_000);
    expect(
      (
        await phone.sendWebhook(
          receivedHook,
          smsReceived({ sender: '+14155550161', text: 'inbox to export', receivedAt: at }),
        )
      ).status,
    ).toBeLessThan(300);
    const heard = () => receiver!.requests.filter((r) => r.raw.includes('inbox to export')).length;
    await expect.poll(heard, { timeout: 30_000 }).toBe(1);
    await client.exportInbox({ deviceId, since: new Date(at.getTime() - 60_000), until: new Date() });
    await expect.poll(heard, { timeout: 30_000 }).toBe(2);

    expect((await client.getLogs(new Date(Date.now() - 3_600_000))).length).toBeGreaterThan(0);
    await client.deleteWebhook(hooks[0].id!);
    expect((await client.getWebhooks()).map((w) => w.event)).toEqual(['sms:received']);
    await client.deleteDevice(deviceId);
    expect(await client.getDevices()).toEqual([]);
  });
});
