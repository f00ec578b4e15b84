import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { createPairingCode } from '../../devices/helpers';
import { createKey, json, registerAccount } from '../../support/accounts';
import type { TestApp } from '../../support/app';
import { eventsOf, updateDeviceRow } from '../../support/factories';
import { readJson } from '../../support/http';
import type { WorkflowStack } from '../../support/temporal';
import { MOBILE_API, registeredApp, startSmsGateStack, tenant } from './helpers';
import { expectSigned } from '../../webhooks/helpers';
import { startReceiver, type Receiver } from '../../webhooks/receiver';
import { createPhoneChannel, type PhoneChannel } from '../../../src/devices/phone-channel';
import { outboxRepository } from '../../../src/messages/outbox.repository';
import { Message } from '../../../src/messages/message.entity';
import { createNotifier } from '../../../src/db/listen-notify';
import { createLogger } from '../../../src/lib/logger';
import {
  APP_VERSION,
  createFakeApp,
  gsonDate,
  smsReceived,
  statePatch,
  systemPing,
  type FakeApp,
  type PendingMessage,
} from './fake-app';

// The SMSGate Android app paired with us through its own protocol (src/compat/smsgate). Sources of
// every route, field, status and header are cited where they are used, as
//   app    = capcom6/android-sms-gateway@0cdc5d86 (app/src/main/java/me/capcom/smsgateway/…)
//   wire   = android-sms-gateway/client-go@9b599876 (smsgateway/…)
//   server = android-sms-gateway/server@22074dda (internal/sms-gateway/…)

describe('the SMSGate app as a phone', () => {
  let stack: WorkflowStack;
  let env: TestWorkflowEnvironment;
  let app: TestApp;
  let receiver: Receiver;

  beforeAll(async () => {
    stack = await startSmsGateStack('smsgate-test', { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
    ({ env, app } = stack);
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await stack?.close();
  });

  async function syncClock() {
    app.clock.set(new Date(await env.currentTimeMs()));
  }

  const phoneApp = () =>
    createFakeApp({
      apiUrl: `${app.url}${MOBILE_API}`,
      now: () => app.clock.now(),
      via: { 'X-Forwarded-For': app.clientIp },
    });

  const paired = (key: string) => registeredApp(app, key);

  const webhooksOf = async (phone: FakeApp) =>
    (await readJson(await phone.getWebhooks())) as { id: string; url: string; event: string }[];
  const hookFor = async (phone: FakeApp, event: string) => {
    const hook = (await webhooksOf(phone)).find((h) => h.event === event);
    if (!hook) throw new Error(`no ${event} webhook listed`);
    return hook;
  };
  const deviceOf = async (call: (m: string, p: string) => Promise<Response>, id: string) =>
    (await readJson(await call('GET', `/v1/devices/${id}`))).device;

  it('pairs with a code, heartbeats, sends, reports Processed → Sent → Delivered, and forwards a text once', async () => {
    await syncClock();
    const { account, key, call } = await tenant(app);
    const hook = await readJson(
      await call('POST', '/v1/webhooks', {
        url: receiver.url,
        events: ['message.sent', 'message.delivered', 'message.received', 'device.online'],
      }),
    );

    // Registration: server handlers/mobile.go postDevice, POST /mobile/v1/device → 201
    // MobileRegisterResponse{id, token, login, password omitempty} (wire responses_mobile.go); the app
    // keeps it as GatewayApi.kt DeviceRegisterResponse(id, token, login, password?). The private token
    // travels as `Authorization: Bearer` (app GatewayApi.kt deviceRegister).
    const phone = phoneApp();
    const { code, id: codeId } = await createPairingCode(app, key);
    const registered = await phone.register(code);
    expect(registered.status).toBe(201);
    const registration = await readJson(registered);
    // Not in the sources: their login is a username their server generates for a new account. Ours
    // already exists and signs in on the dashboard, so `login` is the account id (shown by the app as
    // its username) and `password` is left out, as their server does for an existing user.
    expect(Object.keys(registration).sort()).toEqual(['id', 'login', 'token']);
    expect(registration.login).toBe(account.userId);
    expect(registration.token).toMatch(/^[A-Za-z0-9_-]{43,}$/);
    phone.state.registration = registration;

    // The device was made as POST /v1/device/pair makes one: the code is consumed and names it.
    const codeStatus = await readJson(await call('GET', `/v1/devices/pairing-codes/${codeId}`));
    expect(codeStatus).toMatchObject({ consumed: true, device: { id: registration.id } });
    const device = await deviceOf(call, registration.id);
    expect(device).toMatchObject({
      // app GatewayService.kt: name "${Build.MANUFACTURER}/${Build.PRODUCT}"; User-Agent carries the version.
      name: 'Google/sdk_gphone64_x86_64',
      manufacturer: 'Google',
      app_version_name: APP_VERSION,
      online: true,
      is_default: true,
      // wire domain_devices.go SimCard{slotIndex, simNumber, phoneNumber, carrierName, iccid}: the
      // 1-based simNumber is the subscription id sends select a SIM with.
      sims: [
        {
          subscription_id: 1,
          slot: 0,
          carrier: 'T-Mobile',
          phone_number: '*******4567',
          iccid: '****************1234',
        },
      ],
    });

    // Settings: server handlers/settings/mobile.go GET /mobile/v1/settings → DeviceSettings (wire
    // domain_settings.go), the private view with webhooks.signing_key (server modules/settings/utils.go
    // rules). The app imports them by these keys (MessagesSettings.kt, PingSettings.kt,
    // WebhooksSettings.kt, GatewaySettings.kt).
    const settings = await readJson(await phone.getSettings());
    expect(settings).toEqual({
      messages: {
        // No pause: max null; min 0, the value the app stores by default (MessagesSettings.kt), so
        // importing it is no change.
        send_interval_min: 0,
        send_interval_max: null,
        sim_selection_mode: 'OSDefault',
        processing_order: 'FIFO',
      },
      ping: { interval_seconds: 15 * 60 },
      webhooks: { signing_key: expect.stringMatching(/^[A-Za-z0-9_-]{32}$/) },
      gateway: { notification_channel: 'SSE_ONLY' },
    });

    // Webhooks: server handlers/webhooks/mobile.go GET /mobile/v1/webhooks → []Webhook{id, deviceId,
    // url, event} (wire domain_webhooks.go); the app syncs them (WebhooksUpdateWorker.kt).
    const hooks = await webhooksOf(phone);
    const callback = `${app.url}/compat/smsgate/webhooks/${registration.id}`;
    expect(hooks).toEqual([
      { id: 'phone-gateway-sms-received', deviceId: registration.id, url: callback, event: 'sms:received' },
      { id: 'phone-gateway-sms-data-received', deviceId: registration.id, url: callback, event: 'sms:data-received' },
      { id: 'phone-gateway-mms-received', deviceId: registration.id, url: callback, event: 'mms:received' },
      { id: 'phone-gateway-mms-downloaded', deviceId: registration.id, url: callback, event: 'mms:downloaded' },
      { id: 'phone-gateway-app-started', deviceId: registration.id, url: callback, event: 'app:started' },
      { id: 'phone-gateway-system-ping', deviceId: registration.id, url: callback, event: 'system:ping' },
    ]);

    // Heartbeats: the app's ping (ping/PingForegroundService.kt → webhooks/EventsReceiver.kt system:ping)
    // and its device update (PATCH /mobile/v1/device, server handlers/mobile.go patchDevice → 204).
    const before = (await deviceOf(call, registration.id)).last_heartbeat_at;
    app.clock.advance(60_000);
    const ping = await phone.sendWebhook(await hookFor(phone, 'system:ping'), systemPing());
    expect(ping.status).toBe(204);
    const pinged = await deviceOf(call, registration.id);
    expect(new Date(pinged.last_heartbeat_at).getTime()).toBeGreaterThan(new Date(before).getTime());
    expect(pinged.telemetry.smsgate_health).toMatchObject({ status: 'pass', version: APP_VERSION, releaseId: 42 });
    app.clock.advance(60_000);
    expect((await phone.patchDevice()).status).toBe(204);
    const updated = await deviceOf(call, registration.id);
    expect(new Date(updated.last_heartbeat_at).getTime()).toBeGreaterThan(new Date(pinged.last_heartbeat_at).getTime());
    // A phone its liveness workflow had marked offline is back with its next ping: device.online.
    await updateDeviceRow(app.orm, registration.id, { online: false });
    expect((await phone.sendWebhook(await hookFor(phone, 'system:ping'), systemPing())).status).toBe(204);
    expect((await deviceOf(call, registration.id)).online).toBe(true);
    await expect
      .poll(
        () => receiver.requests.filter((r) => r.event === 'device.online' && r.raw.includes(registration.id)).length,
      )
      .toBe(1);

    // The event stream the app listens to instead of Firebase: server handlers/events/mobile.go
    // GET /mobile/v1/events, text/event-stream (server modules/sse/service.go Handler), opened by
    // app helpers/SSEManager.kt with `Authorization: Bearer <token>`.
    const stream = await phone.openEvents();
    expect(stream.res.status).toBe(200);
    expect(stream.res.headers.get('content-type')).toBe('text/event-stream');
    expect(stream.res.headers.get('cache-control')).toBe('no-cache');

    // A send through our own API; the phone hears "MessageEnqueued" (wire domain_upstream.go
    // PushMessageEnqueued; the app's SSEForegroundService.kt processEvent → ExternalEventType.valueOf).
    const sent = await call('POST', '/v1/messages', {
      body: 'Hello from the gateway',
      to: ['+14155550181', '+14155550182'],
    });
    expect(sent.status).toBe(202);
    const { batch, message_ids } = await readJson(sent);
    await expect.poll(() => stream.events.map((e) => e.type)).toContain('MessageEnqueued');

    // Pending messages: server handlers/messages/mobile.go GET /mobile/v1/message?order= → 200
    // []MobileMessage (wire responses_mobile.go: Message + state + createdAt; converters/messages.go
    // MessageToMobileDTO fills message and textMessage). The app reads GatewayApi.kt Message.
    const pendingRes = await phone.getMessages('fifo');
    expect(pendingRes.status).toBe(200);
    const pending = (await readJson(pendingRes)) as PendingMessage[];
    expect(pending).toEqual(
      ['+14155550181', '+14155550182'].map((to, i) => ({
        id: message_ids[i],
        message: 'Hello from the gateway',
        textMessage: { text: 'Hello from the gateway' },
        phoneNumbers: [to],
        withDeliveryReport: true,
        validUntil: expect.any(String),
        state: 'Pending',
        createdAt: expect.any(String),
      })),
    );
    expect((await readJson(await call('GET', `/v1/batches/${batch.id}`))).batch).toMatchObject({
      status: 'sending',
      dispatched_count: 2,
    });

    // State patches: server handlers/messages/mobile.go PATCH /mobile/v1/message → 204, body
    // MobilePatchMessageRequest (wire requests_mobile.go) as app SendStateWorker.kt builds it.
    const t0 = app.clock.now();
    const at = (s: number) => new Date(t0.getTime() + s * 1000);
    for (const message of pending) {
      expect(
        (await phone.patchMessages([statePatch(message, 'Processed', { Pending: at(0), Processed: at(1) })])).status,
      ).toBe(204);
    }
    // Processed is what the fetch already recorded: still dispatched, no event.
    expect((await readJson(await call('GET', `/v1/batches/${batch.id}`))).batch.dispatched_count).toBe(2);
    for (const message of pending) {
      const history = { Pending: at(0), Processed: at(1), Sent: at(5) };
      expect((await phone.patchMessages([statePatch(message, 'Sent', history)])).status).toBe(204);
    }
    for (const message of pending) {
      const history = { Pending: at(0), Processed: at(1), Sent: at(5), Delivered: at(9) };
      expect((await phone.patchMessages([statePatch(message, 'Delivered', history)])).status).toBe(204);
    }

    const done = await readJson(await call('GET', `/v1/batches/${batch.id}`));
    expect(done.batch).toMatchObject({ status: 'completed', delivered_count: 2, dispatched_count: 0, failed_count: 0 });
    for (const message of done.messages) {
      // The phone's own times (sent 5 s, delivered 9 s after t0, written with a +03:00 offset).
      expect(message).toMatchObject({
        status: 'delivered',
        sent_at: at(5).toISOString(),
        delivered_at: at(9).toISOString(),
      });
    }
    expect(await readJson(await phone.getMessages('fifo'))).toEqual([]);

    // Our webhooks tell the integrator, signed as ours always are.
    await expect
      .poll(() =>
        receiver.requests
          .filter((r) => message_ids.some((id: string) => r.raw.includes(id)))
          .map((r) => r.event)
          .sort(),
      )
      .toEqual(['message.delivered', 'message.delivered', 'message.sent', 'message.sent']);
    for (const request of receiver.requests.filter((r) => r.raw.includes(batch.id))) expectSigned(request, hook.secret);

    // An inbound text: app receiver/ReceiverService.kt → WebHooksService.kt emit sms:received to the
    // listed URL, and the app repeats a call until it is answered 2xx (WebhookQueueProcessorWorker.kt).
    const receivedAt = new Date(app.clock.now().getTime() - 30_000);
    const text = smsReceived({ sender: '+15551230099', text: 'Reply from a handset', receivedAt });
    const inbound = await hookFor(phone, 'sms:received');
    const first = await phone.sendWebhook(inbound, text);
    expect(first.status).toBe(201);
    expect(await readJson(first)).toMatchObject({
      inserted: true,
      message: { direction: 'inbound', status: 'received' },
    });
    const again = await phone.sendWebhook(inbound, text);
    expect(again.status).toBe(200);
    expect((await readJson(again)).inserted).toBe(false);

    const inboundList = await readJson(await call('GET', '/v1/messages?direction=inbound'));
    expect(inboundList.data).toHaveLength(1);
    expect(inboundList.data[0]).toMatchObject({
      device_id: registration.id,
      sender: '+15551230099',
      body: 'Reply from a handset',
      sim_subscription_id: 1,
      received_at: new Date(Math.floor(receivedAt.getTime())).toISOString(),
    });
    await expect
      .poll(
        () =>
          receiver.requests.filter((r) => r.event === 'message.received' && r.raw.includes(inboundList.data[0].id))
            .length,
      )
      .toBe(1);
    expect(await eventsOf(app.orm, { userId: account.userId, name: 'message.received' })).toHaveLength(1);

    // An opt-out keyword through this path puts its sender on the account's suppression list too.
    const stop = await phone.sendWebhook(
      inbound,
      smsReceived({ sender: '+14155550177', text: ' Stop ', receivedAt: app.clock.now() }),
    );
    expect(stop.status).toBe(201);
    const optOuts = await readJson(await call('GET', '/v1/opt-outs'));
    expect(optOuts.data).toEqual([expect.objectContaining({ phone_number: '+14155550177', source: 'inbound' })]);

    // Comment lines keep the stream alive through proxies, as theirs do (server modules/sse/service.go
    // writes ":keepalive" every 15 s); the first one goes out at once so the headers do too.
    expect(stream.comments).toContain('connected');
    await stream.close();
  });

  it('tells the phone of settings and receiving changes on its stream, and maps them into its settings', async () => {
    await syncClock();
    const { key, call } = await tenant(app);
    const phone = await paired(key);
    const id = phone.state.registration!.id;
    const stream = await phone.openEvents();
    expect(stream.res.status).toBe(200);
    // On opening, both workers are told to run (see app-behaviour.test.ts for why).
    const count = (type: string) => stream.events.filter((e) => e.type === type).length;
    await expect.poll(() => stream.events.map((e) => e.type)).toEqual(['SettingsUpdated', 'WebhooksUpdated']);

    // wire domain_upstream.go PushSettingsUpdated → app SettingsUpdateWorker.kt reloads /settings.
    await call('PATCH', `/v1/devices/${id}`, {
      send_delay_seconds: 7,
      send_delay_jitter_seconds: 3,
      heartbeat_interval_minutes: 5,
    });
    await expect.poll(() => count('SettingsUpdated')).toBe(2);
    const settings = await readJson(await phone.getSettings());
    // The pause and its jitter: the app draws each pause within [min, max].
    expect(settings.messages).toMatchObject({ send_interval_min: 7, send_interval_max: 10 });
    expect(settings.ping).toEqual({ interval_seconds: 300 });

    // wire PushWebhooksUpdated → app WebhooksUpdateWorker.kt: receiving off drops the text webhooks.
    await call('PATCH', `/v1/devices/${id}`, { receive_enabled: false });
    await expect.poll(() => count('WebhooksUpdated')).toBe(2);
    expect((await webhooksOf(phone)).map((h) => h.event)).toEqual(['app:started', 'system:ping']);
    // A text still sent from a stale list is answered 2xx and dropped: a refusal would be retried 15
    // times by the app (WebhookQueueProcessorWorker.kt, WebhooksSettings.kt retry_count) for nothing.
    const dropped = async () =>
      (await app.services.metrics.phone.inbound.get()).values.find((v) => v.labels.result === 'receive_disabled')
        ?.value ?? 0;
    const droppedBefore = await dropped();
    const late = await phone.sendWebhook(
      { id: 'phone-gateway-sms-received', url: `${app.url}/compat/smsgate/webhooks/${id}`, event: 'sms:received' },
      smsReceived({ sender: '+15551230100', text: 'off', receivedAt: app.clock.now() }),
    );
    expect(late.status).toBe(204);
    expect(await dropped()).toBe(droppedBefore + 1);
    const [{ n }] = await app.orm.em
      .fork()
      .execute("select count(*)::int as n from messages where device_id = ? and direction = 'inbound'", [id]);
    expect(n).toBe(0);

    // Unpairing on our side ends the stream (the app reconnects and is refused).
    expect((await call('DELETE', `/v1/devices/${id}`)).status).toBe(204);
    await expect.poll(() => stream.ended()).toBe(true);
    await stream.close();
    expect((await phone.openEvents()).res.status).toBe(401);
  });

  it('maps Failed with the error, and a Delivered that skipped Sent', async () => {
    await syncClock();
    const { key, call } = await tenant(app);
    const phone = await paired(key);
    const { batch } = await readJson(
      await call('POST', '/v1/messages', { body: 'Two', to: ['+14155550191', '+14155550192'] }),
    );
    const [one, two] = (await readJson(await phone.getMessages('fifo'))) as PendingMessage[];
    const t = app.clock.now();
    // app MessagesService.kt: "Send result: " + resultToErrorMessage(resultCode) on a failed send.
    const error = 'Send result: RESULT_ERROR_NO_SERVICE (Failed because service is currently unavailable)';
    expect(
      (await phone.patchMessages([statePatch(one, 'Failed', { Pending: t, Processed: t, Failed: t }, error)])).status,
    ).toBe(204);
    expect((await phone.patchMessages([statePatch(two, 'Delivered', { Pending: t, Delivered: t })])).status).toBe(204);
    const detail = await readJson(await call('GET', `/v1/batches/${batch.id}`));
    const byId = Object.fromEntries(detail.messages.map((m: { id: string }) => [m.id, m]));
    expect(byId[one.id]).toMatchObject({
      status: 'failed',
      error_code: 'RESULT_ERROR_NO_SERVICE',
      error_message: error,
    });
    expect(byId[two.id]).toMatchObject({ status: 'delivered', sent_at: null });
    expect(detail.batch).toMatchObject({ status: 'completed', delivered_count: 1, failed_count: 1 });
  });

  it('hands out a message in LIFO order when asked, and its SIM as the app selects it', async () => {
    await syncClock();
    const { key, call } = await tenant(app);
    const phone = await paired(key);
    // server handlers/messages/params.go: order lifo (default) or fifo, anything else 400.
    expect((await phone.getMessages('sideways' as 'fifo')).status).toBe(400);
    await call('POST', '/v1/messages', { body: 'A', to: ['+14155550193'], sim_subscription_id: 1 });
    app.clock.advance(1000);
    await call('POST', '/v1/messages', { body: 'B', to: ['+14155550194'] });
    const lifo = (await readJson(await phone.getMessages('lifo'))) as PendingMessage[];
    expect(lifo.map((m) => m.message)).toEqual(['B', 'A']);
    // wire domain_messages.go Message.simNumber (1-3); the app passes it to SendParams (GatewayService.kt).
    expect(lifo[1].simNumber).toBe(1);
    expect(lifo[0]).not.toHaveProperty('simNumber');
  });

  it('keeps a downloaded MMS, with or without text, and ignores events it never listed', async () => {
    await syncClock();
    const { key } = await tenant(app);
    const phone = await paired(key);
    const id = phone.state.registration!.id;
    const mms = await hookFor(phone, 'mms:downloaded');
    const receivedAt = app.clock.now();
    // app webhooks/payload/MmsDownloadedPayload.kt (wire dto_webhooks.go MmsDownloadedPayload).
    const payload = {
      messageId: '1187',
      sender: '+15551230102',
      recipient: null,
      simNumber: 2,
      phoneNumber: '+15551230102',
      body: 'Look at this',
      subject: 'Photo',
      attachments: [{ partId: 12, contentType: 'image/jpeg', name: 'photo.jpg', size: 1024, data: 'SGVsbG8=' }],
      receivedAt: gsonDate(receivedAt),
    };
    const stored = await phone.sendWebhook(mms, payload);
    expect(stored.status).toBe(201);
    expect((await readJson(stored)).message).toMatchObject({
      sender: '+15551230102',
      body: 'Photo\nLook at this',
      sim_subscription_id: 2,
    });
    // An MMS with no text is kept for its attachments (src/mms/).
    const pictures = await phone.sendWebhook(mms, { ...payload, messageId: '1188', body: null, subject: null });
    expect(pictures.status).toBe(201);
    // wire domain_webhooks.go sms:sent: never listed for the phone, so nothing to do with it.
    const sentHook = { id: 'not-listed', url: mms.url, event: 'sms:sent' };
    expect(
      (await phone.sendWebhook(sentHook, { messageId: 'x', recipient: '+1555', sentAt: gsonDate(receivedAt) })).status,
    ).toBe(204);
    expect(await app.orm.em.fork().count(Message, { deviceId: id, direction: 'inbound' })).toBe(2);
  });

  describe('the phone channel behind /events', () => {
    const HOUR = 3_600_000;

    async function watch(hub: PhoneChannel, deviceId: string) {
      const events: string[] = [];
      let ended = false;
      const unregister = await hub.open(deviceId, {
        send: (event) => events.push(event),
        keepAlive: () => events.push(':keepalive'),
        end: () => (ended = true),
      });
      return { events, ended: () => ended, unregister };
    }

    it('hears of a send and a settings change at once through the database’s notification', async () => {
      await syncClock();
      const { key, call } = await tenant(app);
      const phone = await paired(key);
      const id = phone.state.registration!.id;
      // No poll within the test's time: only a notification can bring the news.
      const notifier = createNotifier({ orm: app.orm, logger: createLogger('silent') });
      const hub = createPhoneChannel({
        orm: app.orm,
        outbox: outboxRepository,
        clock: app.clock,
        logger: createLogger('silent'),
        notifier,
        pollMs: HOUR,
        listeningPollMs: HOUR,
        keepAliveMs: HOUR,
      });
      const stream = await watch(hub, id);
      expect(notifier.listening()).toBe(true);

      expect((await call('POST', '/v1/messages', { body: 'Now', to: ['+14155550196'] })).status).toBe(202);
      await expect.poll(() => stream.events).toEqual(['outbox']);
      await call('PATCH', `/v1/devices/${id}`, { send_delay_seconds: 3 });
      await expect.poll(() => stream.events).toEqual(['outbox', 'settings']);
      // A heartbeat changes nothing the phone applies: no event.
      expect((await phone.patchDevice()).status).toBe(204);
      await call('DELETE', `/v1/devices/${id}`);
      await expect.poll(() => stream.ended()).toBe(true);
      expect(stream.events).toEqual(['outbox', 'settings']);

      stream.unregister();
      // The last stream gone, the listening connection goes back to the pool.
      await expect.poll(() => notifier.listening()).toBe(false);
      expect(hub.size()).toBe(0);
    });

    it('finds the news by polling when nothing notifies, and keeps the stream alive', async () => {
      await syncClock();
      const { key, call } = await tenant(app);
      const phone = await paired(key);
      const id = phone.state.registration!.id;
      const hub = createPhoneChannel({
        orm: app.orm,
        outbox: outboxRepository,
        clock: app.clock,
        logger: createLogger('silent'),
        pollMs: 200,
        keepAliveMs: 300,
      });
      const stream = await watch(hub, id);
      await call('POST', '/v1/messages', { body: 'Later', to: ['+14155550197'] });
      await expect.poll(() => stream.events).toContain('outbox');
      await expect.poll(() => stream.events).toContain(':keepalive');
      // Once fetched, nothing new is announced again.
      await phone.getMessages();
      const count = (name: string) => stream.events.filter((e) => e === name).length;
      const announced = count('outbox');
      // Two more keep-alives (600 ms) span at least two more looks.
      const alive = count(':keepalive');
      await expect.poll(() => count(':keepalive')).toBeGreaterThanOrEqual(alive + 2);
      expect(count('outbox')).toBe(announced);
      stream.unregister();
      expect(hub.size()).toBe(0);
    });
  });

  it('makes each registration a new device, under the plan’s device limit', async () => {
    // Not in the sources: the app sends nothing stable about the handset (client-go requests_mobile.go
    // MobileRegisterRequest: a name, SIMs the app redacts, a push token that is absent in SSE mode),
    // and identical phones would share a name and SIM facts. So no registration finds an older device:
    // a second one is a second device, counted by the plan like any pairing (free plan: one phone).
    const account = await registerAccount(app, { verified: true });
    const key = await createKey(app, account);
    const first = phoneApp();
    expect((await first.register((await createPairingCode(app, key)).code)).status).toBe(201);
    const second = phoneApp();
    const { code, id } = await createPairingCode(app, key);
    const refused = await second.register(code);
    expect(refused.status).toBe(429);
    expect(await readJson(refused)).toMatchObject({ code: 'plan_limit_devices', status: 429 });
    // Nothing was written: the code is still unused.
    const status = await readJson(
      await app.fetch(`/v1/devices/pairing-codes/${id}`, { headers: { 'x-api-key': key } }),
    );
    expect(status.consumed).toBe(false);
    const devices = await readJson(await app.fetch('/v1/devices', { headers: { 'x-api-key': key } }));
    expect(devices.data).toHaveLength(1);
  });

  it('gives a one-time sign-in code for an API key, with which another phone signs in by code', async () => {
    const account = await registerAccount(app, { verified: true, plan: 'business' });
    const key = await createKey(app, account);
    const first = phoneApp();
    // handlers/mobile.go getUserCode behind userauth.NewBasic: the login is not read, the password is the key.
    const answer = await first.getUserCode('me@example.com', key);
    expect(answer.status).toBe(200);
    const { code, validUntil } = await readJson(answer);
    expect(code).toEqual(expect.any(String));
    // A pairing code's lifetime: minutes, not hours.
    const left = Date.parse(validUntil) - Date.now();
    expect(left).toBeGreaterThan(60_000);
    expect(left).toBeLessThanOrEqual(30 * 60_000);
    // The app's "sign in by code" (GatewayApi.kt `Authorization: Code <code>`) pairs with it, once.
    const registered = await first.registerWithCode(code);
    expect(registered.status).toBe(201);
    const { id, token } = await readJson(registered);
    const devices = await readJson(await app.fetch('/v1/devices', { headers: { 'x-api-key': key } }));
    expect(devices.data.map((device: { id: string }) => device.id)).toEqual([id]);
    expect((await phoneApp().registerWithCode(code)).status).toBe(401);

    // A key without the devices scope gets 403. A phone cannot change a password that does not exist
    // here: 403 saying so, not a silent 204.
    const readOnly = await createKey(app, account, ['read']);
    expect((await first.getUserCode('me', readOnly)).status).toBe(403);
    const change = await app.fetch(
      `${MOBILE_API}/user/password`,
      json('PATCH', { currentPassword: 'a', newPassword: 'bbbbbbbbbbbbbb' }, { authorization: `Bearer ${token}` }),
    );
    expect(change.status).toBe(403);
    expect(await readJson(change)).toMatchObject({ code: 'not_supported', status: 403 });
  });

  describe('refusals', () => {
    // Error bodies stay ours ({code, message, status}); their ErrorResponse (client-go responses.go) has
    // a `message` too, and the app reads no error body: its client fails on any non-2xx
    // (GatewayApi.kt `expectSuccess = true`), so the status codes below are what it acts on.
    it('refuses a wrong or used code, logins and their own sign-in codes with clear errors', async () => {
      const { key } = await tenant(app);
      const phone = phoneApp();
      // server handlers/mobile.go: a refused private token fails keyauth → 401 (postDevice docs: 401).
      const wrong = await phone.register('ZZZZZZZZ');
      expect(wrong.status).toBe(401);
      const refusal = await readJson(wrong);
      expect(refusal).toMatchObject({ code: 'invalid_code', status: 401 });
      expect(refusal.message).toMatch(/Private Token/);

      const { code } = await createPairingCode(app, key);
      expect((await phone.register(code)).status).toBe(201);
      const used = await phone.register(code);
      expect(used.status).toBe(401);
      expect((await readJson(used)).code).toBe('invalid_code');

      // app GatewayApi.kt: "sign in by code" sends `Authorization: Code <code>`; one of our pairing
      // codes works there too, a used one does not.
      const second = await createPairingCode(app, key);
      expect((await phone.registerWithCode(second.code)).status).toBe(201);
      expect((await phone.registerWithCode(second.code)).status).toBe(401);

      // Logins (GatewayApi.kt basicAuth) do not exist here.
      const basic = await phone.registerWithCredentials('VQ4GII', 'cp2pydvxd2zwpx');
      expect(basic.status).toBe(401);
      expect((await readJson(basic)).message).toMatch(/pairing code/);
      // Their sign-in codes (handlers/mobile.go getUserCode) take a login and password: a password that
      // is not an API key is refused.
      const userCode = await phone.getUserCode('VQ4GII', 'cp2pydvxd2zwpx');
      expect(userCode.status).toBe(401);
      expect((await readJson(userCode)).code).toBe('unauthenticated');
      // No credentials at all.
      const none = await app.fetch(`${MOBILE_API}/device`, json('POST', { name: 'x' }));
      expect(none.status).toBe(401);
      // A registration body that fails validation is 400 in their handlers (BodyParserValidator).
      const third = await createPairingCode(app, key);
      const bad = await app.fetch(
        `${MOBILE_API}/device`,
        json('POST', { name: 'x', simCards: [{ slotIndex: 'first' }] }, { authorization: `Bearer ${third.code}` }),
      );
      expect(bad.status).toBe(400);
      expect((await readJson(bad)).code).toBe('validation_failed');
    });

    it('refuses the token of an unpaired phone, and answers GET /device without a device', async () => {
      const { key, call } = await tenant(app);
      const phone = await paired(key);
      const id = phone.state.registration!.id;
      // server handlers/mobile.go getDevice: MobileDeviceResponse{device, externalIp}.
      const me = await readJson(await phone.getDevice());
      expect(me).toEqual({
        device: {
          id,
          name: 'Google/sdk_gphone64_x86_64',
          createdAt: expect.any(String),
          updatedAt: expect.any(String),
          lastSeen: expect.any(String),
          simCards: phone.simCards,
        },
        externalIp: app.clientIp,
      });
      const signal = await hookFor(phone, 'system:ping');

      expect((await call('DELETE', `/v1/devices/${id}`)).status).toBe(204);
      // deviceauth.DeviceRequired → 401 for everything after GET /device (server handlers/mobile.go).
      expect((await phone.patchDevice()).status).toBe(401);
      expect((await phone.getMessages()).status).toBe(401);
      expect((await phone.patchMessages([])).status).toBe(401);
      expect((await phone.getWebhooks()).status).toBe(401);
      expect((await phone.getSettings()).status).toBe(401);
      expect((await phone.openEvents()).res.status).toBe(401);
      expect((await phone.sendWebhook(signal, systemPing())).status).toBe(401);
      // deviceauth.New lets an unknown token through to getDevice, which then has no device.
      const after = await phone.getDevice();
      expect(after.status).toBe(200);
      expect(await readJson(after)).toEqual({ externalIp: app.clientIp });
    });

    it('answers 404 and leaves another account’s message alone when a phone patches its id', async () => {
      await syncClock();
      const owner = await tenant(app);
      const ownerPhone = await paired(owner.key);
      const { message_ids } = await readJson(
        await owner.call('POST', '/v1/messages', { body: 'Mine', to: ['+14155550195'] }),
      );
      const intruder = await paired((await tenant(app)).key);
      const foreign: PendingMessage = { id: message_ids[0], phoneNumbers: ['+14155550195'] };
      const t = app.clock.now();
      // Their server (handlers/messages/mobile.go patch) skips ErrMessageNotFound and answers 204; here
      // the phone is told nothing was applied, as /v1 tells it for another phone's message or none.
      for (const state of ['Processed', 'Sent', 'Delivered'] as const) {
        const res = await intruder.patchMessages([statePatch(foreign, state, { Sent: t, Delivered: t })]);
        expect(res.status, state).toBe(404);
        expect(await readJson(res)).toMatchObject({ code: 'not_found', status: 404 });
      }
      for (const id of ['not-a-uuid', '00000000-0000-4000-8000-000000000000']) {
        const res = await intruder.patchMessages([statePatch({ ...foreign, id }, 'Sent', { Sent: t })]);
        expect(res.status, id).toBe(404);
      }
      const message = (await readJson(await owner.call('GET', `/v1/messages/${message_ids[0]}`))).message;
      expect(message).toMatchObject({ status: 'queued', sent_at: null, delivered_at: null });
      // It is still the owner's phone's to send.
      expect(((await readJson(await ownerPhone.getMessages())) as PendingMessage[]).map((m) => m.id)).toEqual(
        message_ids,
      );
    });

    it('refuses a webhook call with a bad signature, a stale timestamp or another phone’s id, and a foreign device update', async () => {
      await syncClock();
      const { key } = await tenant(app);
      const phone = await paired(key);
      const other = await paired(key);
      const hook = await hookFor(phone, 'sms:received');
      const text = smsReceived({ sender: '+15551230101', text: 'forged', receivedAt: app.clock.now() });
      expect((await phone.sendWebhook(hook, text, { signingKey: 'not-the-key' })).status).toBe(401);
      // Not in the sources (their server receives no webhooks): the app signs each attempt afresh
      // (PayloadSingingPlugin.kt), so a timestamp more than 5 minutes off is refused, as our own
      // interface asks of receivers.
      const stale = Math.floor(app.clock.now().getTime() / 1000) - 600;
      expect((await phone.sendWebhook(hook, text, { timestamp: stale })).status).toBe(401);
      // Another phone's key on this phone's URL.
      expect((await phone.sendWebhook(hook, text, { signingKey: other.state.signingKey! })).status).toBe(401);
      // This phone's key, but an event for another device.
      expect((await phone.sendWebhook(hook, text, { deviceId: other.state.registration!.id })).status).toBe(403);
      // server handlers/mobile.go patchDevice: `if req.Id != device.ID { return fiber.ErrForbidden }`.
      expect((await phone.patchDevice({ id: other.state.registration!.id })).status).toBe(403);
      // A payload the app never sends.
      expect((await phone.sendWebhook(hook, { messageId: 'x' })).status).toBe(400);
      // Nothing was stored.
      const [{ n }] = await app.orm.em
        .fork()
        .execute("select count(*)::int as n from messages where device_id = ? and direction = 'inbound'", [
          phone.state.registration!.id,
        ]);
      expect(n).toBe(0);
      expect(gsonDate(new Date('2026-01-01T00:00:00Z'))).toBe('2026-01-01T03:00:00.000+03:00');
    });
  });
});
