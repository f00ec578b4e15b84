import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

// The service's Prometheus metrics: one registry per built services (never prom-client's global
// one), so every process part and every test has its own. Features get only their own group.
// Label values come from small fixed sets (route templates, status codes, error codes, workflow
// types): never an id, a phone number or a raw URL.

const PREFIX = 'phone_gateway_';

/** Counts the database pool's connections (see poolStats in src/db/connection.ts). */
export interface PoolStats {
  used: number;
  free: number;
  pendingAcquires: number;
  pendingCreates: number;
  max: number;
}

/** Values read at scrape time from elsewhere (the composition root wires them once the services exist). */
export interface ScrapeSources {
  /** Paired phones that are online: one cheap query per scrape. */
  phonesOnline?: () => Promise<number>;
  pool?: () => PoolStats | undefined;
}

/** A scrape must answer even when the database does not: a slow source keeps its last value. */
const SOURCE_TIMEOUT_MS = 2000;

async function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('timeout')), ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** HTTP status codes as a class label for histograms: 2xx, 4xx... */
export const statusClass = (status: number) => `${Math.floor(status / 100)}xx`;

export function createMetrics(options: { processMetrics?: boolean } = {}) {
  const registry = new Registry();
  const registers = [registry];
  // Node's own (event loop lag, heap, GC, CPU): real processes only, as they hook process-wide observers.
  if (options.processMetrics) collectDefaultMetrics({ register: registry });
  const sources: ScrapeSources = {};

  const http = {
    requests: new Counter({
      name: `${PREFIX}http_requests_total`,
      help: 'HTTP requests answered, by method, route template (unmatched for none) and status code.',
      labelNames: ['method', 'route', 'status'] as const,
      registers,
    }),
    duration: new Histogram({
      name: `${PREFIX}http_request_duration_seconds`,
      help: 'Time to answer an HTTP request, by method, route template and status class.',
      labelNames: ['method', 'route', 'status_class'] as const,
      buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
  };

  const sends = {
    accepted: new Counter({
      name: `${PREFIX}sends_accepted_total`,
      help: 'Sends accepted (202): one per batch.',
      registers,
    }),
    recipients: new Counter({
      name: `${PREFIX}send_recipients_total`,
      help: 'Recipients of accepted sends (messages created).',
      registers,
    }),
    refused: new Counter({
      name: `${PREFIX}send_refusals_total`,
      help: 'Sends refused, by error code (validation_failed, no_device, email_unverified, plan limits...).',
      labelNames: ['code'] as const,
      registers,
    }),
  };

  const phone = {
    outboxFetches: new Counter({
      name: `${PREFIX}outbox_fetches_total`,
      help: 'Outbox fetches by phones.',
      registers,
    }),
    outboxMessages: new Counter({
      name: `${PREFIX}outbox_messages_total`,
      help: 'Messages handed to phones by outbox fetches (a message not yet reported is handed out again).',
      registers,
    }),
    reports: new Counter({
      name: `${PREFIX}outcome_reports_total`,
      help: 'Outcome reports from phones, by reported status and result (ok, or not_found for a message not theirs).',
      labelNames: ['status', 'result'] as const,
      registers,
    }),
    inbound: new Counter({
      name: `${PREFIX}inbound_texts_total`,
      help:
        'Inbound texts forwarded by phones, by result (new, duplicate of one already stored, or ' +
        'receive_disabled: an SMSGate app forwarded it while receiving was off, and it was dropped; ' +
        'refused: the forward was answered with a 4xx, and the phone may drop the text: its request is logged).',
      labelNames: ['result'] as const,
      registers,
    }),
    inboundCut: new Counter({
      name: `${PREFIX}inbound_texts_cut_total`,
      help:
        'Inbound texts stored with their text or sender cut to the longest a phone can receive ' +
        '(text 39,015, sender 256 characters), by field; what was cut off is logged.',
      labelNames: ['field'] as const,
      registers,
    }),
    mmsAttachments: new Counter({
      name: `${PREFIX}mms_attachments_total`,
      help:
        'Attachments of received MMS, by result: stored, or listed with their message but their bytes ' +
        'not kept (logged): over_quota (past MMS_ATTACHMENT_QUOTA_BYTES of the account), no_data (the phone sent none).',
      labelNames: ['result'] as const,
      registers,
    }),
  };

  const messages = {
    outcomes: new Counter({
      name: `${PREFIX}message_outcomes_total`,
      help:
        'Messages that reached an outcome status (sent, delivered, failed, unknown); a message sent and ' +
        'then delivered counts once in each.',
      labelNames: ['status'] as const,
      registers,
    }),
    staleMarked: new Counter({
      name: `${PREFIX}stale_marked_total`,
      help: 'Messages marked unknown because their stale deadline passed without an outcome.',
      registers,
    }),
  };

  const webhooks = {
    attempts: new Counter({
      name: `${PREFIX}webhook_attempts_total`,
      help:
        'Webhook delivery attempts, by outcome (delivered; retry: another attempt is scheduled; stopped: the ' +
        'delivery failed for good) and response (2xx..5xx, error: no answer, not_sent: the webhook was gone).',
      labelNames: ['outcome', 'response'] as const,
      registers,
    }),
    attemptDuration: new Histogram({
      name: `${PREFIX}webhook_attempt_duration_seconds`,
      help: 'Time of one webhook attempt (request to answer or error), by response.',
      labelNames: ['response'] as const,
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30],
      registers,
    }),
  };

  const workflows = {
    starts: new Counter({
      name: `${PREFIX}workflow_starts_total`,
      help: 'Workflow starts made after a commit or by the reconciler, by workflow type and result (started, failed).',
      labelNames: ['workflow_type', 'result'] as const,
      registers,
    }),
    eagerStarts: new Counter({
      name: `${PREFIX}workflow_eager_starts_total`,
      help: "Starts whose first workflow task the server handed back to this process's worker (eager start), by workflow type.",
      labelNames: ['workflow_type'] as const,
      registers,
    }),
    repairs: new Counter({
      name: `${PREFIX}reconciler_repairs_total`,
      help: 'Rows whose workflow the reconciler had to start (a crash between commit and start), by sweep.',
      labelNames: ['sweep'] as const,
      registers,
    }),
  };

  new Gauge({
    name: `${PREFIX}phones_online`,
    help: 'Paired phones that are online (one count from the database at scrape time).',
    registers,
    async collect() {
      if (!sources.phonesOnline) return;
      try {
        this.set(await within(sources.phonesOnline(), SOURCE_TIMEOUT_MS));
      } catch {
        // The database is out of reach: the last value stands (/readyz says why).
      }
    },
  });
  new Gauge({
    name: `${PREFIX}db_pool_connections`,
    help: 'Database pool connections, by state (used, free, pending_acquire, pending_create, max).',
    labelNames: ['state'] as const,
    registers,
    collect() {
      const stats = sources.pool?.();
      if (!stats) return;
      this.set({ state: 'used' }, stats.used);
      this.set({ state: 'free' }, stats.free);
      this.set({ state: 'pending_acquire' }, stats.pendingAcquires);
      this.set({ state: 'pending_create' }, stats.pendingCreates);
      this.set({ state: 'max' }, stats.max);
    },
  });

  return {
    registry,
    http,
    sends,
    phone,
    messages,
    webhooks,
    workflows,
    /** Wires the values read at scrape time. */
    readAtScrape(from: ScrapeSources): void {
      Object.assign(sources, from);
    },
    /** The Prometheus text exposition of everything above. */
    async render(): Promise<{ contentType: string; body: string }> {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
