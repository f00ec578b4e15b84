import type { MikroORM } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import { createAccountsService } from './accounts/accounts.service';
import { createBotCheck } from './accounts/bot-check';
import { createEmailCodesService } from './accounts/email-codes.service';
import { createMailer, type Mailer } from './accounts/mailer';
import { createSessionsService } from './accounts/sessions.service';
import { createApiKeysService, createKeyUsageRecorder } from './api-keys/api-keys.service';
import type { Config } from './config';
import { createAuth } from './http/auth';
import { createRateLimiter } from './http/rate-limit';
import type { Clock } from './lib/clock';
import type { Logger } from './lib/logger';
import { createEventsService } from './events/events.service';
import { createPlansService } from './plans/plans.service';

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
  const trustedOrigins = [...new Set([new URL(config.publicUrl).origin, new URL(config.dashboardUrl).origin])];
  const auth = createAuth({ apiKeys, keyUsage, sessions, clock, trustedOrigins });
  const events = createEventsService({ clock });
  return { plans, sessions, apiKeys, keyUsage, limiter, mailer, botCheck, codes, accounts, auth, events };
}

export type Services = ReturnType<typeof buildServices>;
