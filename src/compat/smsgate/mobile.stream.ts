import type { PhoneChannel, PhoneEvent } from '../../devices/phone-channel';
import type { StreamCap } from '../../devices/stream-cap';
import type { EventStream } from '../../http/sse';
import type { MobileService, Phone } from './mobile.service';

/** The push events the app acts on (client-go domain_upstream.go PushEventType); receive_enabled decides whether the sms:received webhook is listed. */
const THEIR_EVENTS: Record<PhoneEvent, string> = {
  outbox: 'MessageEnqueued',
  settings: 'SettingsUpdated',
  receiving: 'WebhooksUpdated',
};

/** The app's event stream (GET /events): our phone channel's events in their SSE shape. */
export function createMobileStream(deps: { mobile: MobileService; phoneChannel: PhoneChannel; streamCap: StreamCap }) {
  const { mobile, phoneChannel, streamCap } = deps;
  return {
    async open(phone: Phone, sse: EventStream, userAgent: string): Promise<void> {
      // Opening the stream is the phone's contact; what we write on it afterwards is not. A keepalive
      // only proves that our write reached a socket buffer: a phone gone without closing (out of
      // coverage, battery out, a tunnel that keeps its side open) is written to for as long as TCP
      // keeps retrying, about 15 minutes (longer behind a proxy, whose socket is the one we see), so
      // counting keepalives kept such a phone online 45-60 minutes. What keeps it online is what it
      // sends: its pings (every heartbeat interval, from the app's start after the settings import:
      // docs/phones.md), its pulls (every 15 minutes) and its stream connections.
      await mobile.seen(phone, { userAgent });
      sse.onClose(streamCap.admit(phone));
      // Their sse/service.go: `event: <type>\ndata: <json of the event data>\n\n`; these events carry
      // no data (events.go NewMessageEnqueuedEvent(nil)…), which Go writes as `null`.
      const tell = (event: string) => sse.write(`event: ${event}\ndata: null\n\n`);
      const unregister = await phoneChannel.open(phone.deviceId, {
        send: (event) => tell(THEIR_EVENTS[event]),
        keepAlive: () => sse.write(':keepalive\n\n'),
        end: () => sse.end(),
      });
      sse.onClose(unregister);
      // The app's settings and webhooks workers run once at its start, usually before its registration
      // has finished; finding it unregistered they succeed empty-handed and wait 24 hours (GatewayService.kt
      // start, SettingsUpdateWorker.kt, WebhooksUpdateWorker.kt). The stream opens once registered
      // (gateway/EventsReceiver.kt DeviceRegisteredEvent), and the app pulls its messages on opening
      // (SSEForegroundService.kt onConnected): these two run the other workers at once.
      tell(THEIR_EVENTS.settings);
      tell(THEIR_EVENTS.receiving);
      sse.start();
    },
  };
}

export type MobileStream = ReturnType<typeof createMobileStream>;
