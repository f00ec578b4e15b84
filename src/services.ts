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
import { createAuth } from './http/auth';
import { createRateLimiter } from './http/rate-limit';
import { createSecretBox } from './lib/secret-box';
import type { Clock } from './lib/clock';
import type { Logger } from './lib/logger';
import { createEventsService } from './events/events.service';
import { createDevicesService } from './devices/devices.service';
import { createLiveness } from './devices/liveness';
import { createPairingService } from './devices/pairing.service';
import { createPush, pushProviderFor } from './devices/push';
import { createBatchProgressService } from './messages/batch-progress.service';
import { createMessagesService } from './messages/messages.service';
import { createOutcomesService } from './messages/outcomes.service';
import { createPhoneMessagesService } from './messages/phone-messages.service';
import { createPlansService } from './plans/plans.service';
import { createDeliveryStarter } from './webhooks/delivery-starter';
import { createWebhooksService } from './webhooks/webhooks.service';

export interface ServiceDeps {
  config: Config;
  logger: Logger;
  orm: MikroORM;
  temporal: Client;
  clock: Clock;
  /** Tests may swap the mailer; otherwise SMTP_URL decides. */
  mailer?: Mailer;
}

/**
 * Every service, built once per process. `em()` is the EntityManager of the current request or
 * activity (MikroORM's RequestContext), never a shared one.
 */
export function buildServices(deps: ServiceDeps) {
  const { config, logger, orm, clock } = deps;
  const em = () => orm.em;
  const plans = createPlansService({ em, clock });
  const sessions = createSessionsService({ em, clock });
  const apiKeys = createApiKeysService({ em, clock });
  const keyUsage = createKeyUsageRecorder({ orm, logger });
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
  const trustedOrigins = [...new Set([new URL(config.publicUrl).origin, new URL(config.dashboardUrl).origin])];
  const events = createEventsService({ clock });
  const secretBox = createSecretBox(config.secretsKey);
  // Every event fans out to the subscribed webhooks in its own transaction; their workflows start after commit.
  const deliveryStarter = createDeliveryStarter({ temporal: deps.temporal, config, logger, clock });
  const webhooks = createWebhooksService({
    em,
    clock,
    plans,
    events,
    starter: deliveryStarter,
    allowPrivateNetworks: config.webhooks.allowPrivateNetworks,
    secretBox,
  });
  events.onEmit(webhooks.fanOut);
  events.onCommitted(webhooks.afterCommit);
  // Devices come before auth: device tokens are resolved by the devices service.
  const liveness = createLiveness({ temporal: deps.temporal, config, orm, clock, logger });
  const push = createPush({ provider: pushProviderFor(config), orm, clock, logger });
  const devices = createDevicesService({ em, clock, events, liveness, push });
  const pairing = createPairingService({ em, clock, limiter, plans, events, liveness, publicUrl: config.publicUrl });
  const auth = createAuth({
    apiKeys,
    keyUsage,
    sessions,
    clock,
    trustedOrigins,
    devices: devices.authenticate,
    rates: config.rateLimits,
  });
  const outcomes = createOutcomesService({ em, clock, logger, events, temporal: deps.temporal });
  const messages = createMessagesService({
    em,
    clock,
    logger,
    temporal: deps.temporal,
    taskQueue: config.temporal.taskQueue,
    plans,
    accounts,
    staleWindowMs: config.staleWindowMs,
    defaultCountry: config.defaultCountry,
  });
  const phoneMessages = createPhoneMessagesService({ em, clock, plans, outcomes });
  // A disabled or unpaired phone takes no more sends: what is still queued for it fails, saying why.
  devices.onStopped(async (tx, device, why) => {
    const effects = await outcomes.failQueuedForDevice(
      tx,
      device.id,
      why === 'disabled' ? 'device_disabled' : 'device_unpaired',
      why === 'disabled'
        ? 'The phone was disabled before sending this message.'
        : 'The phone was unpaired before sending this message.',
    );
    return () => outcomes.afterCommit(effects);
  });
  const batchProgress = createBatchProgressService({
    em,
    clock,
    outcomes,
    staleWindowMs: config.staleWindowMs,
    wake: async (deviceId) => {
      const [device] = await em().execute(
        'select id, push_token, push_token_invalid_reason from devices where id = ?',
        [deviceId],
      );
      if (device)
        await push.sendNow(
          { id: device.id, pushToken: device.push_token, pushTokenInvalidReason: device.push_token_invalid_reason },
          'wake',
        );
    },
  });
  return {
    plans,
    sessions,
    apiKeys,
    keyUsage,
    limiter,
    mailer,
    botCheck,
    codes,
    accounts,
    google,
    auth,
    events,
    liveness,
    push,
    devices,
    pairing,
    webhooks,
    deliveryStarter,
    outcomes,
    messages,
    phoneMessages,
    batchProgress,
    clock,
    secretBox,
  };
}

export type Services = ReturnType<typeof buildServices>;
