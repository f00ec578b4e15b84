import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../../support/app';
import { readJson } from '../../support/http';
import type { WorkflowStack } from '../../support/temporal';
import { startReceiver, type Receiver } from '../../webhooks/receiver';
import { appStarted } from './fake-app';
import { registeredApp, startSmsGateStack, tenant } from './helpers';
import { INTEGRATOR_API } from './integrator-client';

// The app tells its webhooks of every start (OrchestratorService.kt: app:started with the SIMs it has
// now). Listed to the app like the others, it reaches us, and we tell the account: our
// device.app_started with the phone as it is now, and SMSGate's app:started as their server relays it.
describe('app:started from the SMSGate app', () => {
  let stack: WorkflowStack;
  let app: TestApp;
  let receiver: Receiver;

  beforeAll(async () => {
    stack = await startSmsGateStack('smsgate-app-started', { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
    ({ app } = stack);
    app.clock.set(new Date(await stack.env.currentTimeMs()));
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await stack?.close();
  });

  it('takes the SIMs the app started with and tells both kinds of webhook', async () => {
    const { key, call } = await tenant(app);
    const phone = await registeredApp(app, key);
    const deviceId = phone.state.registration!.id;
    await call('POST', '/v1/webhooks', { url: receiver.url, events: ['device.app_started'] });
    const dropIn = await app.fetch(`${INTEGRATOR_API}/webhooks`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'their-start', url: receiver.url, event: 'app:started' }),
    });
    expect(dropIn.status).toBe(201);

    const hooks = (await readJson(await phone.getWebhooks())) as { id: string; url: string; event: string }[];
    const hook = hooks.find((h) => h.event === 'app:started');
    expect(hook).toBeDefined();
    const cards = [
      { slotIndex: 0, simNumber: 1, carrierName: 'Alpha' },
      { slotIndex: 1, simNumber: 2, carrierName: 'Beta' },
    ];
    expect((await phone.sendWebhook(hook!, appStarted(cards))).status).toBe(204);

    const device = (await readJson(await call('GET', `/v1/devices/${deviceId}`))).device;
    expect(device.sims).toEqual([
      expect.objectContaining({ subscription_id: 1, slot: 0, carrier: 'Alpha' }),
      expect.objectContaining({ subscription_id: 2, slot: 1, carrier: 'Beta' }),
    ]);

    await expect.poll(() => receiver.requests.filter((r) => r.raw.includes('Beta')).length, { timeout: 20_000 }).toBe(2);
    const bodies = receiver.requests.filter((r) => r.raw.includes('Beta')).map((r) => JSON.parse(r.raw));
    const ours = bodies.find((body) => body.event === 'device.app_started');
    expect(ours.data).toMatchObject({ id: deviceId, sims: device.sims });
    const theirs = bodies.find((body) => body.webhookId === 'their-start');
    expect(theirs).toMatchObject({ event: 'app:started', deviceId });
    expect(theirs.payload).toEqual({ simCards: cards });
  });

  it('refuses an app:started payload the app does not send, and changes nothing', async () => {
    const { key, call } = await tenant(app);
    const phone = await registeredApp(app, key);
    const deviceId = phone.state.registration!.id;
    const before = (await readJson(await call('GET', `/v1/devices/${deviceId}`))).device.sims;
    const hooks = (await readJson(await phone.getWebhooks())) as { id: string; url: string; event: string }[];
    const hook = hooks.find((h) => h.event === 'app:started')!;
    const res = await phone.sendWebhook(hook, { simCards: [{ slotIndex: 'first' }] });
    expect(res.status).toBe(400);
    expect((await readJson(await call('GET', `/v1/devices/${deviceId}`))).device.sims).toEqual(before);
  });
});
