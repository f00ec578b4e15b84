import Koa from 'koa';
import Router from '@koa/router';
import { bodyParser } from '@koa/bodyparser';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import type { Config } from './config';
import type { Logger } from './lib/logger';
import { contentEncoding } from './http/content-encoding';
import { errorHandler } from './http/error-handler';
import { inputGuard } from './http/input-guard';
import { requestContext } from './http/request-context';
import { routeMethods } from './http/route-methods';
import { healthRoutes } from './http/health.routes';
import { messagesRoutes } from './messages/messages.routes';
import { mmsRoutes } from './mms/mms.routes';
import { inboundRefusals } from './messages/inbound-refusals';
import { phoneMessagesRoutes } from './messages/phone-messages.routes';
import { optOutsRoutes } from './opt-outs/opt-outs.routes';
import { templatesRoutes } from './templates/templates.routes';
import { usageRoutes } from './usage/usage.routes';
import { conversationsRoutes } from './conversations/conversations.routes';
import type { Services } from './services';
import { accountsRoutes } from './accounts/accounts.routes';
import { googleRoutes } from './accounts/google.routes';
import { apiKeysRoutes } from './api-keys/api-keys.routes';
import { tokensRoutes } from './tokens/tokens.routes';
import { plansRoutes } from './plans/plans.routes';
import { devicesRoutes } from './devices/devices.routes';
import { phoneRoutes } from './devices/phone.routes';
import { accountSettingsRoutes } from './accounts/account-settings.routes';
import { webhooksRoutes } from './webhooks/webhooks.routes';
import { openapiRoutes } from './openapi/openapi.routes';
import { openapiParts } from './openapi-parts';
import { MOBILE_API, smsgateRequests, mobileRoutes } from './compat/smsgate/mobile.routes';
import { integratorErrors, integratorRoutes } from './compat/smsgate/integrator.routes';
import { serveDashboard } from './dashboard/serve-dashboard';
import { httpMetrics } from './metrics/http-metrics';
import { metricsRoutes } from './metrics/metrics.routes';
import { traceRequests } from './traces/http';
import type { Tracing } from './traces/tracing';

export interface AppDeps {
  config: Config;
  logger: Logger;
  orm: MikroORM;
  temporal: Client;
  services: Services;
  /** Set only when tracing is on: then every request is a span. */
  tracing?: Tracing;
}

/** The Koa application without listen(): main.ts serves it, tests drive it directly. */
export function createApp(deps: AppDeps): Koa {
  // Behind a trusted proxy the client is the last X-Forwarded-For entry, the one that proxy appended:
  // the entries before it are whatever the client sent, and would let it choose its own key for the
  // per-address limits.
  const app = new Koa({ proxy: deps.config.trustProxy, maxIpsCount: 1 });
  // Errors are rendered by errorHandler and logged there; Koa's default printer would log twice.
  app.silent = true;

  const { services, config } = deps;
  const v1 = new Router({ prefix: '/v1' });
  const features = [
    accountsRoutes({
      ...services,
      secureCookies: config.publicUrl.startsWith('https:'),
      googleSignIn: Boolean(config.google.clientId && config.google.clientSecret),
      turnstileSiteKey: config.turnstile.secret ? config.turnstile.siteKey : '',
      defaultCountry: config.defaultCountry ?? null,
    }),
    googleRoutes({
      google: services.google,
      dashboardUrl: config.dashboardUrl,
      secureCookies: config.publicUrl.startsWith('https:'),
    }),
    apiKeysRoutes(services),
    tokensRoutes(services),
    plansRoutes(services),
    devicesRoutes({ ...services, smsgateApiUrl: `${config.publicUrl}${MOBILE_API}` }),
    accountSettingsRoutes(services),
    phoneRoutes(services),
    webhooksRoutes(services),
    messagesRoutes(services),
    mmsRoutes(services),
    phoneMessagesRoutes(services),
    optOutsRoutes(services),
    templatesRoutes(services),
    usageRoutes(services),
    conversationsRoutes(services),
  ];
  for (const feature of features) v1.use(feature.routes());

  // First: the request's span covers everything below and ends with the status the client gets.
  if (deps.tracing) app.use(traceRequests(deps.tracing.tracer));
  app.use(requestContext(deps.logger, deps.orm));
  // Outside the error handler: it counts the status the client gets.
  app.use(httpMetrics(services.metrics.http));
  app.use(errorHandler());
  // The SMSGate integrator API answers its errors in SMSGate's shape, from here on.
  app.use(integratorErrors);
  app.use(contentEncoding());
  const parserOptions = {
    enableTypes: ['json' as const],
    encoding: 'utf-8',
    // Only objects and arrays: a bare `"text"` body is not a request we understand.
    jsonStrict: true,
  };
  // Around the parsers and the input guard: a forwarded text refused by any of them is logged and counted.
  app.use(inboundRefusals({ logger: deps.logger, metrics: services.metrics.phone }));
  // The SMSGate app's paths and its MMS webhook bodies, before the app-wide parser.
  app.use(smsgateRequests({ orm: deps.orm, parserOptions }));
  app.use(bodyParser({ ...parserOptions, jsonLimit: deps.config.bodyLimit }));
  app.use(inputGuard());
  // Before v1: /v1/openapi.json is served by the docs router, outside the feature routers.
  const routers = [
    healthRoutes(deps),
    openapiRoutes({ parts: openapiParts, publicUrl: config.publicUrl }),
    v1,
    mobileRoutes(deps),
    integratorRoutes(deps),
  ];
  // GET /metrics on the API port only for holders of METRICS_TOKEN (else it is METRICS_PORT's alone).
  if (config.metrics.token) routers.unshift(metricsRoutes(services));
  // OPTIONS, 405 and Allow by the route a path names, not by every pattern it happens to match.
  app.use(routeMethods(routers));
  for (const router of routers) app.use(router.routes());
  app.use(serveDashboard());
  return app;
}
