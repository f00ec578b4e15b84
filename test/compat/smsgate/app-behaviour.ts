import { createAppSettings } from './app-settings';
import { createWorkManager, MIN_BACKOFF_MS, type AppTime, type WorkResult } from './app-time';
import {
  createFakeApp,
  gsonDateOn,
  smsReceived,
  systemPing,
  type Android,
  type FakeApp,
  type PendingMessage,
  type Registration,
  type SimCard,
} from './fake-app';

// The SMSGate app as it behaves, not only as it speaks (capcom6/android-sms-gateway@0cdc5d86,
// app/src/main/java/me/capcom/smsgateway/…): which worker runs when, what it does with each answer,
// how it paces its sends and retries, on app time (app-time.ts). The wire requests are fake-app.ts's.

const HOUR = 3_600_000;

type State = 'Pending' | 'Processed' | 'Sent' | 'Delivered' | 'Failed';
const ORDER: State[] = ['Pending', 'Processed', 'Sent', 'Delivered'];

interface LocalMessage {
  id: string;
  seq: number;
  recipients: { phoneNumber: string; state: State; error: string | null }[];
  state: State;
  /** MessagesDao states: each state the message reached, with its time. */
  states: Partial<Record<State, Date>>;
  validUntil: Date | null;
}

interface Hook {
  id: string;
  url: string;
  event: string;
}

export interface AppOptions {
  time: AppTime;
  /** Settings → Cloud Server, as the person typed them. */
  serverUrl: string;
  privateToken: string;
  notificationChannel?: 'AUTO' | 'SSE_ONLY';
  android?: Android;
  /** What a reverse proxy on the way adds (X-Forwarded-For). */
  via?: Record<string, string>;
  simCards?: SimCard[];
  /** The radio: when the SENT broadcast comes after sending, and the delivery report (null: none). */
  radio?: { sentAfterMs: number; deliveredAfterMs: number | null };
  /**
   * Android's own sending limit for the app (see `platform` below): stock Android's 30 texts per 30
   * minutes unless told; null is a phone whose owner lifted it (or whose maker does not enforce it).
   */
  smsLimit?: { count: number; intervalMs: number } | null;
}

/**
 * The error text the app reports for a text Android refused for its limit: MessagesService.kt
 * processStateIntent, `"Send result: " + resultToErrorMessage(resultCode)` for RESULT_ERROR_LIMIT_EXCEEDED.
 */
export const LIMIT_EXCEEDED_ERROR = 'Send result: RESULT_ERROR_LIMIT_EXCEEDED (Failed because we reached the sending queue limit)';

/** Stock Android: SmsUsageMonitor's sms_outgoing_check_max_count and sms_outgoing_check_interval_ms. */
export const STOCK_SMS_LIMIT = { count: 30, intervalMs: 30 * 60_000 };

export function createSmsGateApp(options: AppOptions) {
  const { time } = options;
  const android = options.android ?? { sdk: 33, rawOffsetMinutes: 180 };
  const dates = (date: Date) => gsonDateOn(date, android);
  const radio = options.radio ?? { sentAfterMs: 500, deliveredAfterMs: 2_000 };
  const settings = createAppSettings();
  settings.gateway.configure({
    serverUrl: options.serverUrl,
    privateToken: options.privateToken,
    notificationChannel: options.notificationChannel ?? 'SSE_ONLY',
  });
  const work = createWorkManager(time);
  const messages = new Map<string, LocalMessage>();
  let seq = 0;
  let enabled = false;
  const smsLimit = options.smsLimit === undefined ? STOCK_SMS_LIMIT : options.smsLimit;
  /**
   * Android under the app (frameworks/opt/telephony SMSDispatcher.java and SmsUsageMonitor.java):
   * each text the app hands to SmsManager is checked against the app's sends in the trailing
   * interval. Within the limit it goes to the radio (and counts); past it the confirmation dialog
   * asks the owner ("<app> is sending a large number of SMS messages…", handleReachSentLimit), and
   * the text waits on it: up to MO_MSG_QUEUE_LIMIT (5) texts wait, every further one fails at once
   * with RESULT_ERROR_LIMIT_EXCEEDED (denyIfQueueLimitReached). Allow sends the waiting ones
   * (EVENT_SEND_CONFIRMED_SMS), Deny fails them with RESULT_ERROR_LIMIT_EXCEEDED (EVENT_STOP_SENDING);
   * until someone taps, they sit unsent.
   */
  const platform = {
    sends: [] as number[],
    dialog: null as { shownAt: number; waiting: { id: string; phoneNumber: string }[] } | null,
    dialogs: 0,
    refused: 0,
  };
  let registration: Registration | null = null;
  let fcmToken: string | null = null;
  let webhooks: Hook[] = [];
  let api: FakeApp | null = null;
  let sending = false;
  let stopPing: (() => void) | null = null;
  /** False from a crash to the next start: the process is gone, and the radio's broadcasts with it. */
  let alive = true;

  /** What the test looks at: app times of what the app did, and what it was told. */
  const seen = {
    pulls: [] as number[],
    /** New messages each pull brought (a periodic pull mid-page brings known ones again: not counted). */
    pulled: [] as number[],
    patches: [] as { at: number; status: number }[],
    sent: [] as { id: string; at: number }[],
    /** Ids a pull brought that the app already knew (its database): reported again, never sent again. */
    handedAgain: [] as string[],
    streamOpens: [] as number[],
    streamAttempts: [] as number[],
    streamEvents: [] as { type: string | null; at: number }[],
    keepalives: [] as number[],
    webhookCalls: [] as { event: string; status: number; at: number }[],
    errors: [] as string[],
  };

  /** GatewayService.kt `api`: built from the settings when first used, dropped on stop. */
  const gateway = () => {
    api ??= createFakeApp({
      apiUrl: settings.gateway.serverUrl,
      simCards: options.simCards,
      now: time.date,
      via: options.via,
    });
    api.state.registration = registration;
    api.state.signingKey = settings.webhooks.signingKey;
    return api;
  };

  /** Ktor with `expectSuccess = true` (GatewayApi.kt): any non-2xx answer throws. */
  async function call(request: (api: FakeApp) => Promise<Response>): Promise<Response> {
    const res = await time.busy(request(gateway()));
    if (!res.ok) {
      await time.busy(res.text());
      throw Object.assign(new Error(`HTTP ${res.status}`), { status: res.status });
    }
    return res;
  }

  const outcome = (run: () => Promise<void>) => async (): Promise<WorkResult> => {
    try {
      await run();
      return 'success';
    } catch (error) {
      seen.errors.push((error as Error).message);
      return 'retry';
    }
  };

  // modules/gateway/workers/RegistrationWorker.kt → GatewayService.kt registerDevice (Anonymous mode:
  // GatewayApi(serverUrl, privateToken) sends the private token as Bearer).
  const register = outcome(async () => {
    if (!enabled) return;
    if (registration) {
      try {
        await call((api) => api.patchDevice());
        if (fcmToken === null && !stream.open()) stream.connect();
        return;
      } catch (error) {
        if ((error as { status?: number }).status !== 401) throw error;
      }
    }
    const res = await call((api) => api.register(settings.gateway.privateToken ?? '', fcmToken));
    registration = (await time.busy(res.json())) as Registration;
    // gateway/EventsReceiver.kt DeviceRegisteredEvent: without an FCM token the event stream starts.
    if (fcmToken === null && !stream.open()) stream.connect();
  });

  // GatewayService.kt getNewMessages: one GET, each message handled in turn, no loop.
  const pull = outcome(async () => {
    if (!enabled || !registration) return;
    seen.pulls.push(time.now());
    const order = settings.messages.processingOrder === 'FIFO' ? 'fifo' : 'lifo';
    const res = await call((api) => api.getMessages(order));
    const list = (await time.busy(res.json())) as PendingMessage[];
    let fresh = 0;
    for (const message of list) {
      if (message.state && message.state !== 'Pending') continue;
      // Already known: its state is sent again (SendStateWorker), it is not sent twice.
      if (messages.has(message.id)) seen.handedAgain.push(message.id);
      if (messages.has(message.id)) sendState(message.id);
      else {
        enqueue(message);
        fresh += 1;
      }
    }
    seen.pulled.push(fresh);
  });

  // modules/gateway/workers/SettingsUpdateWorker.kt: null settings (not registered) is a success.
  const loadSettings = outcome(async () => {
    if (!registration) return;
    const res = await call((api) => api.getSettings());
    settings.update((await time.busy(res.json())) as Record<string, unknown>);
  });

  // modules/gateway/workers/WebhooksUpdateWorker.kt: not registered syncs an empty list (success).
  const loadWebhooks = outcome(async () => {
    if (!registration) {
      webhooks = [];
      return;
    }
    const res = await call((api) => api.getWebhooks());
    webhooks = ((await time.busy(res.json())) as Hook[]).map(({ id, url, event }) => ({ id, url, event }));
  });

  const workers = {
    // PullMessagesWorker.kt: periodic at MIN_PERIODIC_INTERVAL_MILLIS, REPLACE: a start runs it now.
    pull: () => work.replacePeriodic('PullMessagesWorker', 15 * 60_000, pull),
    settings: () => work.replacePeriodic('SettingsUpdateWorker', 24 * HOUR, loadSettings),
    webhooks: () => work.replacePeriodic('WebhooksUpdateWorker', 24 * HOUR, loadWebhooks),
  };

  /** helpers/SSEManager.kt inside SSEForegroundService.kt: okhttp-sse on `${serverUrl}/events`. */
  const stream = (() => {
    let attempts = 0;
    let current: Awaited<ReturnType<FakeApp['openEvents']>> | null = null;
    let disconnecting = false;
    let cancelReconnect = () => {};

    // SSEForegroundService.kt processEvent → orchestrator/EventsRouter.kt → gateway/EventsReceiver.kt.
    function route(type: string | null) {
      seen.streamEvents.push({ type, at: time.now() });
      const event = type ?? 'MessageEnqueued';
      if (event === 'MessageEnqueued') workers.pull();
      else if (event === 'SettingsUpdated') workers.settings();
      else if (event === 'WebhooksUpdated') workers.webhooks();
      else seen.errors.push(`Unknown event type: ${event}`);
    }

    // SSEManager.kt scheduleReconnect: 5 s for attempts 1-5, 30 s for 6-10, then a minute.
    function scheduleReconnect() {
      if (disconnecting) return;
      attempts += 1;
      const delay = attempts > 10 ? 60_000 : attempts > 5 ? 30_000 : 5_000;
      cancelReconnect = time.after(delay, connect);
    }

    function connect() {
      disconnecting = false;
      seen.streamAttempts.push(time.now());
      void time
        .busy(gateway().openEvents())
        .then((opened) => {
          if (disconnecting) return void opened.close();
          current = opened;
          if (!opened.res.ok) {
            current = null;
            void opened.close();
            return scheduleReconnect();
          }
          // onOpen: SSEForegroundService.kt onConnected pulls the pending messages.
          attempts = 0;
          seen.streamOpens.push(time.now());
          workers.pull();
          let handled = 0;
          let comments = 0;
          const drain = () => {
            for (; handled < opened.events.length; handled++) route(opened.events[handled].type);
            // Keepalives are noted, not acted on (okhttp-sse hands comments to no listener).
            for (; comments < opened.comments.length; comments++) seen.keepalives.push(time.now());
          };
          opened.onData(drain);
          drain();
          void opened.done.then(() => {
            if (current !== opened) return;
            current = null;
            time.wake();
            // onClosed / onFailure.
            scheduleReconnect();
          });
        })
        .catch(() => scheduleReconnect());
    }

    return {
      connect,
      attempts: () => attempts,
      open: () => current !== null,
      async disconnect() {
        disconnecting = true;
        cancelReconnect();
        const closing = current;
        current = null;
        await closing?.close();
      },
    };
  })();

  // modules/gateway/workers/SendStateWorker.kt: one PATCH with the message's state, its recipients'
  // and its state history; retried with exponential backoff, given up after 10 attempts.
  function sendState(id: string) {
    work.oneTime('SendStateWorker', async (attempt) => {
      const message = messages.get(id);
      if (!message) return 'failure';
      try {
        const res = await time.busy(
          gateway().patchMessages([
            {
              id: message.id,
              state: message.state,
              recipients: message.recipients,
              states: Object.fromEntries(Object.entries(message.states).map(([state, at]) => [state, dates(at)])),
            },
          ]),
        );
        seen.patches.push({ at: time.now(), status: res.status });
        await time.busy(res.text());
        if (res.ok) return 'success';
      } catch (error) {
        seen.errors.push((error as Error).message);
      }
      return attempt + 1 < 10 ? 'retry' : 'failure';
    });
  }

  // modules/messages/MessagesService.kt updateState → MessageStateChangedEvent → SendStateWorker.
  function updateState(id: string, phoneNumber: string | null, state: State, error: string | null = null) {
    if (!alive) return;
    const message = messages.get(id)!;
    for (const recipient of message.recipients) {
      if (phoneNumber === null || recipient.phoneNumber === phoneNumber) Object.assign(recipient, { state, error });
    }
    // The message's state follows its recipients: failed when all failed, else the least advanced.
    const next = message.recipients.every((r) => r.state === 'Failed')
      ? 'Failed'
      : ORDER[Math.min(...message.recipients.filter((r) => r.state !== 'Failed').map((r) => ORDER.indexOf(r.state)))];
    if (next !== message.state) {
      message.state = next;
      message.states[next] = time.date();
    }
    sendState(id);
  }

  // MessagesService.kt enqueueMessage → SendMessagesWorker (unique, KEEP): sendPendingMessages.
  function enqueue(pending: PendingMessage) {
    const now = time.date();
    messages.set(pending.id, {
      id: pending.id,
      seq: seq++,
      recipients: pending.phoneNumbers.map((phoneNumber) => ({ phoneNumber, state: 'Pending', error: null })),
      state: 'Pending',
      states: { Pending: now },
      validUntil: pending.validUntil ? new Date(pending.validUntil) : null,
    });
    if (!sending) {
      sending = true;
      void sendPending().finally(() => (sending = false));
    }
  }

  // MessagesRepository.kt getPending(order): the oldest (FIFO) or newest (LIFO) Pending message.
  function nextPending(): LocalMessage | undefined {
    const pending = [...messages.values()].filter((m) => m.state === 'Pending').sort((a, b) => a.seq - b.seq);
    return settings.messages.processingOrder === 'FIFO' ? pending[0] : pending[pending.length - 1];
  }

  // MessagesService.kt sendPendingMessages: one message at a time, every recipient of it at once
  // (sendSMS), then a pause drawn from the send interval [min, max] seconds before the next message.
  async function sendPending() {
    for (;;) {
      await time.sleep(1);
      const message = nextPending();
      if (!message || !enabled) return;
      if (message.validUntil && message.validUntil.getTime() < time.now()) {
        updateState(message.id, null, 'Failed', 'TTL expired');
        continue;
      }
      for (const { phoneNumber } of message.recipients) {
        // sendFn returned: the app marks it Processed whatever Android does with it next.
        updateState(message.id, phoneNumber, 'Processed');
        androidSends(message.id, phoneNumber);
      }
      const range = settings.messages.sendIntervalRange;
      if (range) await time.sleep((range[0] + Math.floor(Math.random() * (range[1] - range[0] + 1))) * 1000);
    }
  }

  /** The radio sends it: SENT broadcast, then the delivery report. */
  function transmit(id: string, phoneNumber: string) {
    seen.sent.push({ id, at: time.now() });
    time.after(radio.sentAfterMs, () => updateState(id, phoneNumber, 'Sent'));
    const delivered = radio.deliveredAfterMs;
    if (delivered !== null) time.after(delivered, () => updateState(id, phoneNumber, 'Delivered'));
  }

  /** SMSDispatcher.sendRawPdu → checkDestination: SmsUsageMonitor.check(appPackage, 1). */
  function androidSends(id: string, phoneNumber: string) {
    if (smsLimit) {
      const since = time.now() - smsLimit.intervalMs;
      platform.sends = platform.sends.filter((at) => at > since);
      if (platform.sends.length >= smsLimit.count) {
        if (platform.dialog && platform.dialog.waiting.length >= 5) {
          platform.refused += 1;
          updateState(id, phoneNumber, 'Failed', LIMIT_EXCEEDED_ERROR);
          return;
        }
        if (!platform.dialog) {
          platform.dialog = { shownAt: time.now(), waiting: [] };
          platform.dialogs += 1;
        }
        platform.dialog.waiting.push({ id, phoneNumber });
        return;
      }
      platform.sends.push(time.now());
    }
    transmit(id, phoneNumber);
  }

  // modules/webhooks/WebHooksService.kt emit → WebhookQueueProcessorWorker.kt: each listed webhook of
  // the event gets the call, signed (PayloadSingingPlugin.kt); a non-2xx answer or a network error
  // is retried 5 s × 2^(n-1) later (WebhookQueueRepository.kt), until retry_count is spent.
  function emit(event: string, payload: Record<string, unknown>) {
    for (const hook of webhooks.filter((h) => h.event === event)) {
      let retries = 0;
      const attempt = () =>
        void time
          .busy(
            (async () => {
              const res = await gateway().sendWebhook(hook, payload, { signingKey: settings.webhooks.signingKey });
              await res.text();
              return res.status;
            })(),
          )
          .catch(() => 0)
          .then((status) => {
            seen.webhookCalls.push({ event, status, at: time.now() });
            if (status >= 200 && status < 300) return;
            if (retries < settings.webhooks.retryCount) {
              retries += 1;
              time.after(5_000 * 2 ** (retries - 1), attempt);
            }
          });
      attempt();
    }
  }

  const app = {
    settings,
    seen,
    messages,
    work,
    stream,
    registration: () => registration,
    webhooks: () => webhooks,

    /**
     * GatewayService.kt start (the person switches on Cloud server, or the app starts with it on):
     * PushService.register (SSE only: RegistrationWorker at once), then the pull, webhooks and settings
     * workers are enqueued together, each running at once; with an imported ping interval,
     * PingForegroundService pings and pulls every interval.
     */
    start() {
      enabled = true;
      alive = true;
      if (settings.gateway.notificationChannel === 'SSE_ONLY') fcmToken = null;
      // services/PushService.kt: otherwise a Firebase token, with which the stream never starts and
      // pushes come only from SMSGate's own Firebase project.
      else fcmToken ??= `fcm-${Math.random().toString(36).slice(2)}`;
      work.uniqueOneTime('RegistrationWorker', 'REPLACE', register, {
        backoff: { policy: 'EXPONENTIAL', delayMs: MIN_BACKOFF_MS },
      });
      workers.pull();
      workers.webhooks();
      workers.settings();
      if (!sending && nextPending()) {
        sending = true;
        void sendPending().finally(() => (sending = false));
      }
      const interval = settings.ping.intervalSeconds;
      if (interval) {
        const ping = () => {
          emit('system:ping', systemPing());
          workers.pull();
          stopPing = time.after(interval * 1000, ping);
        };
        ping();
      }
    },

    /**
     * The process killed mid-send. Its database (MessagesDao: every message it fetched, by id, with
     * its state) survives; the radio's SENT and DELIVERED broadcasts due meanwhile, and the state
     * reports not yet made, are lost with it, so the server still has those texts handed out and
     * hands them out again. start() afterwards is the app started again: WorkManager's persisted
     * SendMessagesWorker goes on with the messages still Pending.
     */
    async crash() {
      alive = false;
      await app.stop();
    },

    /** GatewayService.kt stop: the stream, the workers and the ping end. */
    async stop() {
      enabled = false;
      stopPing?.();
      stopPing = null;
      work.cancelAll();
      await stream.disconnect();
      api = null;
    },

    /** What the notification "restart the app to apply changes" asks for. */
    async restart() {
      await app.stop();
      app.start();
    },

    /** Android under the app: its sends in the trailing interval and the limit's dialog. */
    platform,

    /** The owner taps the dialog: Allow sends the texts waiting on it, Deny fails them. */
    answerDialog(answer: 'allow' | 'deny') {
      const waiting = platform.dialog?.waiting ?? [];
      platform.dialog = null;
      for (const { id, phoneNumber } of waiting) {
        if (answer === 'allow') transmit(id, phoneNumber);
        else {
          platform.refused += 1;
          updateState(id, phoneNumber, 'Failed', LIMIT_EXCEEDED_ERROR);
        }
      }
    },

    /** modules/receiver/ReceiverService.kt: a text arrived; sms:received to the listed webhooks. */
    receiveSms(input: { sender: string; text: string; simNumber?: number }) {
      emit('sms:received', smsReceived({ ...input, receivedAt: time.date() }, dates));
    },
  };
  return app;
}

export type SmsGateApp = ReturnType<typeof createSmsGateApp>;
