import Router from '@koa/router';
import type { Context } from 'koa';
import { callerOf, type Auth } from '../http/auth';
import { unauthenticated } from '../http/errors';
import { validate } from '../http/validate';
import type { DevicesService } from './devices.service';
import { settingsPatch } from './devices.routes';
import { heartbeatBody, pairBody, patchOwnDeviceBody, pushTokenBody } from './devices.schemas';
import { deviceView } from './devices.views';
import type { PairingService } from './pairing.service';
import type { PhoneChannel } from './phone-channel';
import type { StreamCap } from './stream-cap';
import { eventStream } from '../http/sse';

/** The phone calling with its device token. */
function phoneOf(ctx: Context) {
  const caller = callerOf(ctx);
  if (caller.kind !== 'device') throw unauthenticated();
  return caller;
}

/** The phone app's own endpoints: pairing (no credentials), then everything with its device token. */
export function phoneRoutes({
  auth,
  devices,
  pairing,
  phoneChannel,
  streamCap,
}: {
  auth: Auth;
  devices: DevicesService;
  pairing: PairingService;
  phoneChannel: PhoneChannel;
  streamCap: StreamCap;
}): Router {
  const router = new Router({ prefix: '/device' });

  router.post('/pair', async (ctx) => {
    const { body } = await validate(ctx, { body: pairBody });
    const { device, token } = await pairing.pair(
      {
        code: body.code,
        hardwareKey: body.hardware_key,
        name: body.name,
        brand: body.brand,
        buildId: body.build_id,
        manufacturer: body.manufacturer,
        model: body.model,
        osVersion: body.os_version,
        osApiLevel: body.os_api_level,
        appVersionCode: body.app_version_code,
        appVersionName: body.app_version_name,
        pushToken: body.push_token,
      },
      ctx.ip,
    );
    ctx.status = 201;
    ctx.body = { device: deviceView(device), device_token: token };
  });

  router.get('/', auth.device(), async (ctx) => {
    const phone = phoneOf(ctx);
    ctx.body = { device: deviceView(await devices.get(phone.userId, phone.deviceId)) };
  });

  router.patch('/', auth.device(), async (ctx) => {
    const phone = phoneOf(ctx);
    const { body } = await validate(ctx, { body: patchOwnDeviceBody });
    const device = await devices.update(phone.userId, phone.deviceId, settingsPatch(body), 'phone');
    ctx.body = { device: deviceView(device) };
  });

  router.delete('/', auth.device(), async (ctx) => {
    const phone = phoneOf(ctx);
    await devices.unpair(phone.userId, phone.deviceId);
    ctx.status = 204;
  });

  router.post('/heartbeat', auth.device(), async (ctx) => {
    const phone = phoneOf(ctx);
    const { body } = await validate(ctx, { body: heartbeatBody });
    const device = await devices.heartbeat(phone.userId, phone.deviceId, {
      appVersionCode: body.app_version_code,
      appVersionName: body.app_version_name,
      osApiLevel: body.os_api_level,
      osVersion: body.os_version,
      pushToken: body.push_token,
      sims: body.sims,
      telemetry: body.telemetry,
    });
    ctx.body = { device: deviceView(device) };
  });

  router.post('/push-token', auth.device(), async (ctx) => {
    const phone = phoneOf(ctx);
    const { body } = await validate(ctx, { body: pushTokenBody });
    await devices.setPushToken(phone.userId, phone.deviceId, body.token);
    ctx.status = 204;
  });

  // The live channel (Server-Sent Events): `outbox` when there is new work to fetch, `settings` when
  // a setting changed (the phone fetches GET /v1/device), `unpaired` before the stream ends for good;
  // a heartbeat comment keeps proxies from closing it. A dropped stream loses nothing: the phone
  // fetches its outbox when it reconnects, and polls while it cannot.
  router.get('/events', auth.device(), async (ctx) => {
    const phone = phoneOf(ctx);
    const sse = eventStream(ctx);
    // A place among the phone's and the account's open streams, given back when this one closes.
    sse.onClose(streamCap.admit(phone));
    const tell = (event: string) => sse.write(`event: ${event}\ndata: ${JSON.stringify({ type: event })}\n\n`);
    const unregister = await phoneChannel.open(phone.deviceId, {
      send: (event) => tell(event === 'outbox' ? 'outbox' : 'settings'),
      keepAlive: () => sse.write(': heartbeat\n\n'),
      end: () => {
        tell('unpaired');
        sse.end();
      },
    });
    sse.onClose(unregister);
    // Reconnect after 2 s (EventSource's default is 3); `ready` tells the phone to fetch what is waiting.
    sse.write('retry: 2000\n\n');
    tell('ready');
    sse.start();
  });

  return router;
}
