import type { Device, SimSelection } from '../../devices/device.entity';
import { MAX_SENDS_PER_DAY, MAX_SENDS_PER_HOUR, MAX_SENDS_PER_MINUTE } from '../../devices/devices.schemas';
import type { Event } from '../../events/event.entity';
import type { Batch } from '../../messages/batch.entity';
import type { Message, MessageStatus } from '../../messages/message.entity';
import type { ProcessingState } from './integrator.schemas';

// Our resources in the shapes of SMSGate's integrator API (client-go smsgateway types named
// beside each); Go's `omitempty` fields are left out when empty, as their server does.

/**
 * A message's state in their words. `unknown` (no outcome within the stale window) is Processed: the
 * phone had it and has not said what became of it; a late report still moves it on.
 */
const STATE_OF: Record<MessageStatus, ProcessingState> = {
  queued: 'Pending',
  dispatched: 'Processed',
  unknown: 'Processed',
  sent: 'Sent',
  delivered: 'Delivered',
  failed: 'Failed',
  // Inbound texts are no sends; listed for completeness of the type only.
  received: 'Delivered',
};
const ORDER: ProcessingState[] = ['Pending', 'Processed', 'Sent', 'Delivered'];

/** The time a message reached each state it passed through. */
function timesOf(message: Message): Partial<Record<ProcessingState, Date>> {
  return {
    Pending: message.createdAt,
    ...(message.dispatchedAt ? { Processed: message.dispatchedAt } : {}),
    ...(message.sentAt ? { Sent: message.sentAt } : {}),
    ...(message.deliveredAt ? { Delivered: message.deliveredAt } : {}),
    ...(message.failedAt ? { Failed: message.failedAt } : {}),
  };
}

/** The send's state: Failed when every recipient failed, else the least advanced of the others. */
export function stateOf(messages: Message[]): ProcessingState {
  const live = messages.map((m) => STATE_OF[m.status]).filter((state) => state !== 'Failed');
  if (live.length === 0) return 'Failed';
  return ORDER[Math.min(...live.map((state) => ORDER.indexOf(state)))];
}

/**
 * client-go MessageState. Each state's time is when the last recipient that reached it did
 * (Failed: the last failure), so `states` reads as the send's history.
 */
/** A send's content as client-go Message has it: its textMessage, or its dataMessage (base64, port). */
const contentOf = (batch: Batch) =>
  batch.dataPort != null
    ? { dataMessage: { data: batch.body, port: batch.dataPort } }
    : { textMessage: { text: batch.body } };

export function messageStateView(id: string, batch: Batch, messages: Message[], withContent: boolean) {
  const state = stateOf(messages);
  const states: Partial<Record<ProcessingState, string>> = {};
  for (const key of [...ORDER, 'Failed'] as ProcessingState[]) {
    const times = messages.map((m) => timesOf(m)[key]).filter((at): at is Date => Boolean(at));
    if (times.length > 0) states[key] = new Date(Math.max(...times.map((at) => at.getTime()))).toISOString();
  }
  return {
    id,
    deviceId: batch.deviceId,
    state,
    isHashed: false,
    // As given: ciphertext of the text and numbers, for the integrator's own Encryptor to read.
    isEncrypted: batch.encrypted,
    recipients: messages.map((m) => ({
      phoneNumber: m.recipient ?? '',
      state: STATE_OF[m.status],
      ...(m.status === 'failed' || m.status === 'unknown'
        ? { error: m.errorMessage ?? m.errorCode ?? 'No outcome was reported in time.' }
        : {}),
    })),
    states,
    ...(withContent ? contentOf(batch) : {}),
  };
}

/** client-go Webhook. */
export const webhookView = (id: string, event: string, url: string, deviceId: string | null) => ({
  id,
  deviceId,
  url,
  event,
});

/** SMSGate's limit periods (settings.limit_period) and the phone setting each sets, within its bounds. */
export const LIMIT_PERIODS: Record<
  string,
  { field: 'maxSendsPerMinute' | 'maxSendsPerHour' | 'maxSendsPerDay'; max: number }
> = {
  PerMinute: { field: 'maxSendsPerMinute', max: MAX_SENDS_PER_MINUTE },
  PerHour: { field: 'maxSendsPerHour', max: MAX_SENDS_PER_HOUR },
  PerDay: { field: 'maxSendsPerDay', max: MAX_SENDS_PER_DAY },
};

/** SMSGate's settings.sim_selection_mode and our sim_selection. */
export const SIM_SELECTION_MODES: Record<string, SimSelection> = {
  OSDefault: 'os_default',
  RoundRobin: 'round_robin',
  Random: 'random',
};
const THEIR_SIM_SELECTION_MODE = Object.fromEntries(
  Object.entries(SIM_SELECTION_MODES).map(([theirs, ours]) => [ours, theirs]),
) as Record<SimSelection, string>;

/**
 * client-go domain_settings.go DeviceSettings, as our phone settings give them. The webhooks'
 * signing key is never shown: the account sets its own (changeSettings).
 */
export function settingsView(device: Device | undefined) {
  const messages: Record<string, unknown> = { sim_selection_mode: 'OSDefault', processing_order: 'FIFO' };
  if (device) {
    messages.sim_selection_mode = THEIR_SIM_SELECTION_MODE[device.simSelection as SimSelection];
    messages.processing_order = device.processingOrder.toUpperCase();
    const longest = device.sendDelaySeconds + (device.sendDelayJitterSeconds ?? 0);
    if (device.sendDelaySeconds > 0) messages.send_interval_min = device.sendDelaySeconds;
    if (longest > 0) messages.send_interval_max = longest;
    const limit = device.maxSendsPerMinute
      ? { limit_period: 'PerMinute', limit_value: device.maxSendsPerMinute }
      : device.maxSendsPerHour
        ? { limit_period: 'PerHour', limit_value: device.maxSendsPerHour }
        : device.maxSendsPerDay
          ? { limit_period: 'PerDay', limit_value: device.maxSendsPerDay }
          : { limit_period: 'Disabled' };
    Object.assign(messages, limit);
  }
  return {
    messages,
    ...(device ? { ping: { interval_seconds: device.heartbeatIntervalMinutes * 60 } } : {}),
  };
}

const PRIORITY: Record<string, string> = {
  'message.failed': 'ERROR',
  'message.unknown': 'WARN',
  'device.offline': 'WARN',
};

/** client-go domain_logs.go LogEntry: `id` is its place in the answer, the event's own id is in the context. */
export const logEntryView = (event: Event, index: number) => ({
  id: index + 1,
  priority: PRIORITY[event.name] ?? 'INFO',
  module: event.name.split('.')[0],
  message: event.name,
  context: {
    event_id: event.id,
    ...(event.messageId ? { message_id: event.messageId } : {}),
    ...(event.deviceId ? { device_id: event.deviceId } : {}),
  },
  createdAt: event.createdAt.toISOString(),
});
