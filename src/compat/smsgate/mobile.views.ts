import type { Device, Sim } from '../../devices/device.entity';
import type { Message } from '../../messages/message.entity';
import type { SimCard } from './mobile.schemas';

// Our resources in the shapes the SMSGate app reads. Each shape is the client-go wire type named
// beside it; Go's `omitempty` fields are left out when empty, as their server would.

/**
 * Their SIMs carry no subscription id, only a 1-based slot number (client-go domain_devices.go
 * SimCard.simNumber); it stands in for the subscription id, so a send's sim_subscription_id is the
 * slot number the app selects with (Message.simNumber).
 */
export const simsFromCards = (cards: SimCard[]): Sim[] =>
  cards.map((card) => ({
    subscription_id: card.simNumber,
    slot: card.slotIndex,
    carrier: card.carrierName ?? null,
    phone_number: card.phoneNumber ?? null,
    iccid: card.iccid ?? null,
  }));

/** Our SIMs as the app lists its SimCard (its AppStartedPayload, client-go's Device). */
export const simCardsOf = (sims: Sim[]) =>
  sims
    .filter((sim) => typeof sim.subscription_id === 'number')
    .map((sim) => ({
      slotIndex: typeof sim.slot === 'number' ? sim.slot : sim.subscription_id! - 1,
      simNumber: sim.subscription_id!,
      ...(sim.phone_number ? { phoneNumber: String(sim.phone_number) } : {}),
      ...(sim.carrier ? { carrierName: sim.carrier } : {}),
      ...(sim.iccid ? { iccid: String(sim.iccid) } : {}),
    }));

/** client-go domain_devices.go Device. */
export const deviceView = (device: Device) => {
  const cards = simCardsOf(device.sims ?? []);
  return {
    id: device.id,
    name: device.name,
    createdAt: device.createdAt.toISOString(),
    updatedAt: device.updatedAt.toISOString(),
    lastSeen: (device.lastHeartbeatAt ?? device.pairedAt).toISOString(),
    ...(cards.length > 0 ? { simCards: cards } : {}),
  };
};

/**
 * client-go responses_mobile.go MobileMessage (Message + state + createdAt): one recipient per
 * message, as our messages are. `validUntil` is the message's stale deadline, so the phone drops a
 * text that would arrive after we have already called it unknown.
 */
export const pendingMessageView = (message: Message) => {
  const sim = message.simSubscriptionId;
  return {
    // A text the platform's limit refused goes again as a new attempt, under the id of that attempt:
    // the app sends no id it knows again (GatewayService.kt processMessage).
    id: message.sendId ?? message.id,
    // A data SMS as GatewayApi.kt's MessageContent.Data: the app sends it with sendDataMessage.
    ...(message.dataPort != null
      ? { dataMessage: { data: message.body, port: message.dataPort } }
      : { message: message.body, textMessage: { text: message.body } }),
    phoneNumbers: [message.recipient],
    // The app decrypts the text and the number with its passphrase (MessagesService.kt sendSMS).
    ...(message.encrypted ? { isEncrypted: true } : {}),
    ...(sim !== null && sim !== undefined && sim >= 1 && sim <= 3 ? { simNumber: sim } : {}),
    withDeliveryReport: true,
    ...(message.staleAt ? { validUntil: message.staleAt.toISOString() } : {}),
    state: 'Pending',
    createdAt: message.createdAt.toISOString(),
  };
};

/** client-go domain_webhooks.go Webhook: the ids are stable, so the app's sync keeps its rows. */
export const webhookView = (device: Device, event: string, url: string) => ({
  id: `phone-gateway-${event.replace(/[^a-z]+/g, '-')}`,
  deviceId: device.id,
  url,
  event,
});

/**
 * client-go domain_settings.go DeviceSettings, as the server's settings/mobile.go hands them to the
 * phone (the private view, signing key included). Keys we leave out keep the phone's own value.
 */
export const settingsView = (device: Device, signingKey: string) => {
  // The app waits a random time within [min, max] between sends: our pause and its jitter.
  const longest = device.sendDelaySeconds + (device.sendDelayJitterSeconds ?? 0);
  return {
    messages: {
      // No pause is a max of null. The min is never null: the app stores it as a number that
      // defaults to 0 and compares the imported value with that (MessagesSettings.kt import), so a
      // null would be a change on every fetch, each asking the person to restart the app.
      send_interval_min: longest > 0 ? device.sendDelaySeconds : 0,
      send_interval_max: longest > 0 ? longest : null,
      // The SIM is chosen here (sim_selection) and each message names it: the app keeps a named one.
      sim_selection_mode: 'OSDefault',
      // The order our outbox hands the messages out in; the app asks for it (GET /message?order=).
      processing_order: device.processingOrder === 'lifo' ? 'LIFO' : 'FIFO',
    },
    // The app's ping service: its system:ping webhook is the heartbeat.
    ping: { interval_seconds: device.heartbeatIntervalMinutes * 60 },
    webhooks: { signing_key: signingKey },
    // Their app would otherwise wait for pushes from SMSGate's own Firebase project, which cannot
    // reach it from here: it listens to our event stream instead.
    gateway: { notification_channel: 'SSE_ONLY' },
  };
};
