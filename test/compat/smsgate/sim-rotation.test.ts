import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../../support/app';
import { readJson } from '../../support/http';
import type { WorkflowStack } from '../../support/temporal';
import type { PendingMessage, SimCard } from './fake-app';
import { registeredApp, startSmsGateStack, tenant } from './helpers';

// The SMSGate app on a dual-SIM phone with the phone's sim_selection and processing_order set on
// /v1: each message it fetches names the SIM chosen for it (Message.simNumber, which the app's
// MessagesService.kt selectSimNumber keeps over its own selection), and the settings it imports
// say the order it asks its messages in.

const cards: SimCard[] = [
  { slotIndex: 0, simNumber: 1, phoneNumber: '*******0001', carrierName: 'T-Mobile', iccid: null },
  { slotIndex: 1, simNumber: 2, phoneNumber: '*******0002', carrierName: 'Vodafone', iccid: null },
];

describe('SIM rotation and newest first on the SMSGate app', () => {
  let stack: WorkflowStack;
  let app: TestApp;

  beforeAll(async () => {
    stack = await startSmsGateStack('smsgate-sim-rotation-test');
    app = stack.app;
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('hands a 2-SIM phone three messages on SIM 1, 2, 1 with round_robin, and shows each one’s SIM', async () => {
    const { key, call } = await tenant(app);
    const phone = await registeredApp(app, key, { simCards: cards });
    const id = phone.state.registration!.id;
    expect((await call('PATCH', `/v1/devices/${id}`, { sim_selection: 'round_robin' })).status).toBe(200);

    const sent = await readJson(
      await call('POST', '/v1/messages', { body: 'Rotate', to: ['+14155550301', '+14155550302', '+14155550303'] }),
    );
    const pending = (await readJson(await phone.getMessages('fifo'))) as PendingMessage[];
    expect(pending.map((m) => [m.phoneNumbers[0], m.simNumber])).toEqual([
      ['+14155550301', 1],
      ['+14155550302', 2],
      ['+14155550303', 1],
    ]);
    for (const [n, messageId] of (sent.message_ids as string[]).entries()) {
      const { message } = await readJson(await call('GET', `/v1/messages/${messageId}`));
      expect(message.sim_subscription_id).toBe([1, 2, 1][n]);
    }
    // The app keeps its own selection off: each message names its SIM.
    expect((await readJson(await phone.getSettings())).messages.sim_selection_mode).toBe('OSDefault');
  });

  it('tells the app to ask newest first with processing_order lifo, and hands them out so', async () => {
    const { key, call } = await tenant(app);
    const phone = await registeredApp(app, key, { simCards: cards });
    const id = phone.state.registration!.id;
    expect((await readJson(await phone.getSettings())).messages.processing_order).toBe('FIFO');
    expect((await call('PATCH', `/v1/devices/${id}`, { processing_order: 'lifo' })).status).toBe(200);
    const order = (await readJson(await phone.getSettings())).messages.processing_order as string;
    expect(order).toBe('LIFO');

    for (const to of ['+14155550311', '+14155550312', '+14155550313']) {
      expect((await call('POST', '/v1/messages', { body: 'Newest', to: [to] })).status).toBe(202);
      app.clock.advance(1000);
    }
    // GatewayService.kt getMessages asks in the order the settings say.
    const pending = (await readJson(await phone.getMessages(order === 'LIFO' ? 'lifo' : 'fifo'))) as PendingMessage[];
    expect(pending.map((m) => m.phoneNumbers[0])).toEqual(['+14155550313', '+14155550312', '+14155550311']);
  });
});
