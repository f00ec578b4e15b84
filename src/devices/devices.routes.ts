import Router from '@koa/router';
import { callerOf, type Auth } from '../http/auth';
import { pageBody } from '../http/pagination';
import { validate } from '../http/validate';
import type { Idempotency } from '../idempotency/idempotency.middleware';
import { pathId } from '../lib/fields';
import type { DevicesService, SettingsPatch } from './devices.service';
import { patchDeviceBody, type PatchDeviceBody } from './devices.schemas';
import { deviceView, pairingCodeCreatedView, pairingCodeStatusView, pairingRefusalView } from './devices.views';
import { createPairingCodeBody, listPairingRefusalsQuery } from './pairing.schemas';
import type { PairingService } from './pairing.service';

/** Body fields → service input; absent fields stay absent, so only sent fields change. */
export function settingsPatch(body: Partial<PatchDeviceBody>): SettingsPatch {
  return {
    name: body.name,
    enabled: body.enabled,
    receiveEnabled: body.receive_enabled,
    heartbeatIntervalMinutes: body.heartbeat_interval_minutes,
    sendDelaySeconds: body.send_delay_seconds,
    sendDelayJitterSeconds: body.send_delay_jitter_seconds,
    maxSendsPerMinute: body.max_sends_per_minute,
    maxSendsPerHour: body.max_sends_per_hour,
    maxSendsPerDay: body.max_sends_per_day,
    simSelection: body.sim_selection,
    processingOrder: body.processing_order,
    sendingCapacity: body.sending_capacity,
    sendingCapacityMinutes: body.sending_capacity_minutes,
    sendWindow: body.send_window,
    preferredSimSubscriptionId: body.preferred_sim_subscription_id,
    clearPreferredSim: body.clear_preferred_sim,
  };
}

/** Phones, for integrators and the dashboard (API key or session). */
export function devicesRoutes({
  auth,
  devices,
  pairing,
  idempotency,
  smsgateApiUrl,
}: {
  auth: Auth;
  devices: DevicesService;
  pairing: PairingService;
  idempotency: Idempotency;
  /** The SMSGate app's "API URL" for this service, told with every pairing code. */
  smsgateApiUrl: string;
}): Router {
  const router = new Router({ prefix: '/devices' });

  // Before '/:id' so "pairing-codes" is never taken for a device id.
  router.post('/pairing-codes', auth.scope('devices'), idempotency.key(), async (ctx) => {
    const { body } = await validate(ctx, { body: createPairingCodeBody });
    const minutes = body.expires_in_minutes;
    const { code, plain, pairUrl } = await pairing.createCode(
      callerOf(ctx).userId,
      minutes === undefined ? undefined : minutes * 60_000,
    );
    ctx.status = 201;
    ctx.body = pairingCodeCreatedView(code, plain, pairUrl, smsgateApiUrl);
  });

  router.get('/pairing-codes/:id', auth.scope('devices'), async (ctx) => {
    const { params } = await validate(ctx, { params: pathId() });
    const { code, device } = await pairing.codeStatus(callerOf(ctx).userId, params.id);
    ctx.body = pairingCodeStatusView(code, device);
  });

  router.get('/pairing-refusals', auth.scope('devices'), async (ctx) => {
    const { query } = await validate(ctx, { query: listPairingRefusalsQuery });
    const page = await pairing.refusals(callerOf(ctx).userId, {
      pairingCodeId: query.pairing_code_id,
      cursor: query.cursor,
      limit: query.limit,
    });
    ctx.body = pageBody(page, pairingRefusalView);
  });

  router.get('/', auth.scope('read'), async (ctx) => {
    ctx.body = { data: (await devices.list(callerOf(ctx).userId)).map(deviceView) };
  });

  router.get('/:id', auth.scope('read'), async (ctx) => {
    const { params } = await validate(ctx, { params: pathId() });
    ctx.body = { device: deviceView(await devices.get(callerOf(ctx).userId, params.id)) };
  });

  router.patch('/:id', auth.scope('devices'), async (ctx) => {
    const { params, body } = await validate(ctx, { params: pathId(), body: patchDeviceBody });
    const device = await devices.update(callerOf(ctx).userId, params.id, settingsPatch(body), 'api');
    ctx.body = { device: deviceView(device) };
  });

  router.delete('/:id', auth.scope('devices'), async (ctx) => {
    const { params } = await validate(ctx, { params: pathId() });
    await devices.unpair(callerOf(ctx).userId, params.id);
    ctx.status = 204;
  });

  router.post('/:id/default', auth.scope('devices'), async (ctx) => {
    const { params } = await validate(ctx, { params: pathId() });
    ctx.body = { device: deviceView(await devices.setDefault(callerOf(ctx).userId, params.id)) };
  });

  return router;
}
