import type { MikroORM } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import { createAccountsService } from './accounts/accounts.service';
import { createBotCheck } from './accounts/bot-check';
import { createEmailCodesService } from './accounts/email-codes.service';
import { createGoogleService } from './accounts/google.service';
import { createMailer, type Mailer } from './accounts/mailer';
import { createSessionsService } from './accounts/sessions.service';
import { createApiKeysService, createKeyUsageRecorder } from './api-keys/api-keys.service';
import type { Config } from './config';
import { poolStats } from './db/connection';
import { devicesRepository } from './devices/devices.repository';
import { createDevicesService } from './devices/devices.service';
import { createLiveness } from './devices/liveness';
import { createPairingService } from './devices/pairing.service';
import { createPresenceService } from './devices/presence.service';
import { createPush, pushProviderFor } from './devices/push';
import { createEventsService } from './events/events.service';
import { createNotifier } from './db/listen-notify';
import { createStreamCap } from './devices/stream-cap';
import { createPhoneChannel } from './devices/phone-channel';
import { createPacedWakes } from './devices/paced-wakes';
import { createAuth } from './http/auth';
import { createIdempotency } from './idempotency/idempotency.middleware';
import { createIdempotencyService } from './idempotency/idempotency.service';
import { createRateLimiter } from './http/rate-limit';
import { createBackground } from './lib/background';
import type { Clock } from './lib/clock';
import type { Logger } from './lib/logger';
import type { Tracing } from './traces/tracing';
import { createSecretBox } from './lib/secret-box';
import { createMetrics } from './metrics/metrics';
import { createBatchProgressService } from './messages/batch-progress.service';
import { batchStarts } from './messages/batch-starts';
import { createMessagesService } from './messages/messages.service';
import { createOutcomesService } from './messages/outcomes.service';
import { createPlatformLimit } from './messages/platform-limit';
import { createFailoverService } from './messages/failover.service';
import { createPhoneMessagesService } from './messages/phone-messages.service';
import { outboxRepository } from './messages/outbox.repository';
import { createOptOutsService } from './opt-outs/opt-outs.service';
import { createTemplatesService } from './templates/templates.service';
import { createTokensService } from './tokens/tokens.service';
import { createPlansService } from './plans/plans.service';
import { createReconcilerService, type Sweep } from './reconciler/reconciler.service';
import { createDeliveryQueueService } from './webhooks/delivery-queue.service';
import { deliveryStarts } from './webhooks/delivery-starts';
import { createWebhooksService } from './webhooks/webhooks.service';
import { createIntegratorWebhooks } from './compat/smsgate/integrator.webhooks';
import { createIntegratorService } from './compat/smsgate/integrator.service';
import { createInboxService } from './compat/smsgate/inbox.service';
import { createMobileService } from './compat/smsgate/mobile.service';
import { createMobileStream } from './compat/smsgate/mobile.stream';
import { createMobileWebhooks } from './compat/smsgate/mobile.webhooks';
import { createMmsService } from './mms/mms.service';
import { createUsageService } from './usage/usage.service';
import { createConversationsService } from './conversations/conversations.service';
import { createStarter } from '../temporal/starter';

export interface ServiceDeps {
  config: Config;
  logger: Logger;
  orm: MikroORM;
  temporal: Client;
  clock: Clock;
  /** Tests may swap the mailer; otherwise SMTP_URL decides. */
  mailer?: Mailer;
  /** Tracing, when on (OTEL_EXPORTER_OTLP_ENDPOINT, or a test's in-memory exporter). */
  tracing?: Tracing;
  /** The client shares this process's worker's connection: starts may be eager (temporal/starter.ts). */
  eagerStart?: boolean;
  /** Replaces the reconciler's sweeps (tests: a sweep over the shared test database would reach other files' rows). */
  sweeps?: Sweep[];
  /** Test-only: runs after an idempotent request commits, before it answers (the crash test kills there). */
  afterIdempotentCommit?: () => void;
  /** Node's process metrics (event loop, heap, GC) in the registry: real processes, not tests. */
  processMetrics?: boolean;
}

/**
 * The composition root: every service, built once per process (api, worker, tests), and every hook
 * by which one feature hears another, registered in one block below. Wiring only. `em()` is the
 * EntityManager of the current request or activity (MikroORM's RequestContext), never a shared one.
 */
export function buildServices(deps: ServiceDeps) {
  const { config, logger, orm, clock, temporal } = deps;
  const em = () => orm.em;
  // Work after a response (starts, pushes) runs outside any request: it gets a fork of its own.
  const fresh = () => orm.em.fork();
  const background = createBackground(logger);
  // This build's own registry (never prom-client's global one): each process part and test has its own.
  const metrics = createMetrics({ processMetrics: deps.processMetrics });
  metrics.readAtScrape({
    phonesOnline: () => devicesRepository.countOnline(fresh()),
    pool: () => poolStats(orm),
  });
  const starter = createStarter({
    temporal,
    logger,
    clock,
    background,
    metrics: metrics.workflows,
    tracing: deps.tracing,
    eagerStart: deps.eagerStart,
  });

  const plans = createPlansService({ em, clock });
  const sessions = createSessionsService({ em, clock });
  // Postgres LISTEN/NOTIFY: phones told of work and settings, credentials dropped when they change.
  const notifier = createNotifier({ orm: deps.orm, logger });
  const apiKeys = createApiKeysService({ em, clock, feed: notifier });
  const keyUsage = createKeyUsageRecorder({ orm, logger });
  const tokens = createTokensService({ em, clock });
  const limiter = createRateLimiter({ em, clock });
  const mailer = deps.mailer ?? createMailer({ smtpUrl: config.mail.smtpUrl, from: config.mail.from, logger });
  const botCheck = createBotCheck({ secret: config.turnstile.secret, verifyUrl: config.turnstile.verifyUrl });
  const codes = createEmailCodesService({ em, clock });
  const accounts = createAccountsService({
    em,
    clock,
    logger,
    sessions,
    codes,
    mailer,
    botCheck,
    limiter,
    plans,
    defaultPlan: config.defaultPlan,
  });
  const google = createGoogleService({
    em,
    clock,
    sessions,
    ...config.google,
    redirectUri: `${config.publicUrl}/v1/auth/google/callback`,
    defaultPlan: config.defaultPlan,
  });
  const events = createEventsService({ clock });
  const secretBox = createSecretBox(config.secretsKey);
  const deliveryStart = deliveryStarts({ em: fresh, taskQueue: config.temporal.taskQueue });
  const webhooks = createWebhooksService({
    em,
    clock,
    plans,
    events,
    starter,
    deliveryStarts: deliveryStart,
    allowPrivateNetworks: config.webhooks.allowPrivateNetworks,
    allowLoopbackHttp: config.webhooks.allowLoopbackHttp,
    secretBox,
  });
  const webhookQueue = createDeliveryQueueService({
    em: fresh,
    clock,
    logger,
    allowPrivateNetworks: config.webhooks.allowPrivateNetworks,
    allowLoopbackHttp: config.webhooks.allowLoopbackHttp,
    secretBox,
    metrics: metrics.webhooks,
    retryScheduleMs: config.webhooks.retryScheduleMs,
    tracer: deps.tracing?.tracer,
  });
  const liveness = createLiveness({ temporal, config, em: fresh, clock, background, starter });
  const push = createPush({ provider: pushProviderFor(config), em: fresh, clock, logger, background });
  const devices = createDevicesService({ em, clock, events, liveness, push, feed: notifier });
  const presence = createPresenceService({ em, events, clock });
  const phoneChannel = createPhoneChannel({
    orm: deps.orm,
    outbox: outboxRepository,
    clock,
    logger,
    notifier,
    keepAliveMs: config.phoneEventsHeartbeatMs,
  });
  const streamCap = createStreamCap(config.eventStreams);
  const pairing = createPairingService({
    em,
    clock,
    limiter,
    plans,
    events,
    liveness,
    publicUrl: config.publicUrl,
    forgetToken: devices.forgetToken,
  });
  const trustedOrigins = [...new Set([config.publicUrl, config.dashboardUrl].flatMap(loopbackAliases))];
  const auth = createAuth({
    apiKeys,
    keyUsage,
    tokens,
    sessions,
    clock,
    trustedOrigins,
    devices: devices.authenticate,
    rates: config.rateLimits,
    operatorToken: config.metrics.token,
  });
  // A send that can go now wakes its phone by push after its commit, beside its workflow's start.
  const batchStart = batchStarts({
    em: fresh,
    clock,
    taskQueue: config.temporal.taskQueue,
    staleWindowMs: config.staleWindowMs,
    wake: push.enabled ? (deviceId) => background.run('wake push', () => push.wakeNow(deviceId)) : undefined,
  });
  const outcomes = createOutcomesService({
    em,
    clock,
    events,
    starter,
    batchStarts: batchStart,
    metrics: { ...metrics.messages, reports: metrics.phone.reports },
    platformLimit: createPlatformLimit({ staleWindowMs: config.staleWindowMs }),
  });
  const idempotency = createIdempotency(
    createIdempotencyService({ em, clock, secretBox, afterCommit: deps.afterIdempotentCommit }),
  );
  const optOuts = createOptOutsService({ em, clock, defaultCountry: config.defaultCountry });
  const templates = createTemplatesService({ em, clock });
  const usage = createUsageService({ em, clock });
  const conversations = createConversationsService({ em });
  const messages = createMessagesService({
    em,
    clock,
    plans,
    accounts,
    starter,
    batchStarts: batchStart,
    outcomes,
    events,
    suppressed: optOuts.suppressedAmong,
    noneSuppressed: optOuts.noneSuppressed,
    staleWindowMs: config.staleWindowMs,
    defaultCountry: config.defaultCountry,
    metrics: metrics.sends,
  });
  // A phone reached by push hears when its pace frees, as one on the live channel does.
  const pacedWakes = createPacedWakes({
    orm: deps.orm,
    outbox: outboxRepository,
    clock,
    logger,
    wake: (deviceId) => background.run('wake push', () => push.wakeNow(deviceId)),
  });
  const mms = createMmsService({ em, clock, logger, metrics: metrics.phone, ...config.mms });
  const phoneMessages = createPhoneMessagesService({
    em,
    clock,
    plans,
    outcomes,
    events,
    metrics: metrics.phone,
    logger,
    onPacedOut: push.enabled ? pacedWakes.watch : undefined,
  });
  const smsgateWebhooks = createIntegratorWebhooks({ em, clock, devices, webhooks, secretBox });
  const smsgateIntegrator = createIntegratorService({
    em,
    clock,
    messages,
    devices,
    webhooks,
    events,
    secretBox,
    integratorWebhooks: smsgateWebhooks,
  });
  const smsgateInbox = createInboxService({ em, mms });
  const smsgateMobile = createMobileService({
    em,
    clock,
    pairing,
    devices,
    phoneMessages,
    outcomes,
    secretBox,
    mms,
    events,
  });
  const mobileStream = createMobileStream({ mobile: smsgateMobile, phoneChannel, streamCap });
  const mobileWebhooks = createMobileWebhooks({ mobile: smsgateMobile, metrics: metrics.phone, logger });
  const failover = createFailoverService({ clock, events, staleWindowMs: config.staleWindowMs });
  const batchProgress = createBatchProgressService({
    em,
    clock,
    outcomes,
    staleWindowMs: config.staleWindowMs,
    wake: push.wakeNow,
  });

  // How the features hear each other, all in one place: each runs in the transaction of what it hears.
  events.subscribe(webhooks.fanOut); // every event: a delivery per receiving webhook
  events.subscribe(optOuts.applyKeywords); // an inbound STOP or START changes the opt-out list
  devices.onStopped(outcomes.failQueuedForStopped); // a disabled or unpaired phone: its queue fails
  presence.onOffline(async (tx, device) => void (await failover.reroute(tx, device))); // failover
  webhooks.writeBodies('smsgate', smsgateWebhooks.writeBody); // SMSGate-format webhook bodies
  apiKeys.onRevoked(tokens.endWithKey); // a revoked key's tokens are revoked with it

  const reconciler = createReconcilerService({
    logger,
    metrics: metrics.workflows,
    sweeps: deps.sweeps ?? [
      starter.sweep(batchStart),
      starter.sweep(deliveryStart),
      starter.sweep(liveness.starts),
      idempotency.service.sweep(),
      tokens.sweep(),
      mms.sweep(),
    ],
  });
  return {
    clock,
    metrics,
    background,
    starter,
    // How each kind of workflow is started (and found unstarted by the reconciler's sweeps).
    starts: { batches: batchStart, webhookDeliveries: deliveryStart, liveness: liveness.starts },
    plans,
    sessions,
    apiKeys,
    keyUsage,
    tokens,
    limiter,
    mailer,
    botCheck,
    codes,
    accounts,
    google,
    auth,
    idempotency,
    events,
    secretBox,
    webhooks,
    webhookQueue,
    liveness,
    push,
    devices,
    presence,
    notifier,
    phoneChannel,
    pacedWakes,
    streamCap,
    pairing,
    outcomes,
    optOuts,
    templates,
    usage,
    conversations,
    messages,
    phoneMessages,
    mms,
    smsgateIntegrator,
    smsgateWebhooks,
    smsgateInbox,
    smsgateMobile,
    mobileStream,
    mobileWebhooks,
    batchProgress,
    failover,
    reconciler,
    /** Waits for work handed to the background (workflow starts, signals, pushes) and key usage. */
    async drain(): Promise<void> {
      await background.idle();
      await keyUsage.flush();
    },
    /** Stops what runs on its own: the credential caches' subscriptions, the key usage timer, the paced wakes. */
    async stop(): Promise<void> {
      await apiKeys.stop();
      await devices.stopCache();
      await keyUsage.stop();
      pacedWakes.stop();
    },
  };
}

export type Services = ReturnType<typeof buildServices>;

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

/**
 * The origin of `url`, and where it names this machine by a loopback name, the same origin under the
 * other names: under `npm start` the dashboard opened at http://127.0.0.1:3000 is the one whose
 * PUBLIC_URL says http://localhost:3000.
 */
function loopbackAliases(url: string): string[] {
  const parsed = new URL(url);
  if (!LOOPBACK_NAMES.includes(parsed.hostname)) return [parsed.origin];
  return LOOPBACK_NAMES.map((name) => {
    const alias = new URL(parsed.origin);
    alias.hostname = name;
    return alias.origin;
  });
}
