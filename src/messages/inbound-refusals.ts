import type { Context, Middleware } from 'koa';
import type { Logger } from '../lib/logger';
import type { Metrics } from '../metrics/metrics';
import { ApiError } from '../http/errors';

// A phone forwards a received text once and retries a refusal only a few times (the SMSGate app 15
// times, then drops it): a text refused for good is lost, and the phone cannot tell anyone. So every
// refusal of a forwarded text is kept where an operator finds it, the log, with the text itself (its
// sender by length: phone numbers never reach the log), and
// counted (phone_gateway_inbound_texts_total{result="refused"}). Mounted before the body checks (the
// input guard, the routes' schemas) so that it sees whichever of them refuses.

const V1_INBOUND = /^\/v1\/device\/inbound\/?$/;
const SMSGATE_HOOK = /^\/compat\/smsgate\/webhooks\/[^/]+\/?$/;
/** The app's webhook events that carry a received text (its system:ping does not). */
const TEXT_EVENTS = new Set(['sms:received', 'mms:downloaded']);

const statusOf = (error: unknown): number => {
  if (error instanceof ApiError) return error.status;
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === 'number' ? status : 500;
};

const asObject = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

// Phone numbers never reach the log (src/lib/logger.ts): a sender is logged by its length only.
const NUMBERS = new Set(['sender', 'phoneNumber', 'recipient']);
const withoutNumbers = (fields: Record<string, unknown>) =>
  Object.fromEntries(
    Object.entries(fields).map(([key, value]) =>
      NUMBERS.has(key) && typeof value === 'string' ? [key, `[${value.length} characters]`] : [key, value],
    ),
  );

/** What the request said about the text (its sender by length, an MMS's attachments by count). */
function textOf(ctx: Context, smsgate: boolean): Record<string, unknown> | undefined {
  const body = (ctx.request as { body?: unknown }).body;
  if (body === undefined) return undefined;
  if (!smsgate) return withoutNumbers(asObject(body));
  const envelope = asObject(body);
  const { attachments, ...payload } = asObject(envelope.payload);
  return {
    event: envelope.event,
    deviceId: envelope.deviceId,
    ...withoutNumbers(payload),
    ...(Array.isArray(attachments) ? { attachments: attachments.length } : {}),
  };
}

export function inboundRefusals({ logger, metrics }: { logger: Logger; metrics: Metrics['phone'] }): Middleware {
  return async (ctx, next) => {
    if (ctx.method !== 'POST') return next();
    const path = ctx.path.replace(/\/{2,}/g, '/');
    const v1 = V1_INBOUND.test(path);
    const smsgate = !v1 && SMSGATE_HOOK.test(path);
    if (!v1 && !smsgate) return next();
    try {
      await next();
    } catch (error) {
      const status = statusOf(error);
      // 408 and 429 are "later", and the phone retries; a 5xx is ours and logged as such. Receiving
      // turned off on /v1 is the phone's own setting, and it is told so.
      const code = error instanceof ApiError ? error.code : undefined;
      if (status < 400 || status >= 500 || status === 408 || status === 429 || code === 'receive_disabled') throw error;
      const text = textOf(ctx, smsgate);
      // The event as sent: a hostile one (an object whose toString is no function) is not a text's.
      if (smsgate && text && !(typeof text.event === 'string' && TEXT_EVENTS.has(text.event))) throw error;
      metrics.inbound.inc({ result: 'refused' });
      const log = (ctx.state as { log?: Logger }).log ?? logger;
      const caller = (ctx.state as { caller?: { deviceId?: string } }).caller;
      log.warn(
        {
          path,
          status,
          errorCode: code,
          reason: error instanceof Error ? error.message : String(error),
          errors: error instanceof ApiError ? error.errors : undefined,
          deviceId: caller?.deviceId,
          text,
        },
        'inbound: a forwarded text was refused; the phone may drop it, so it is kept here',
      );
      throw error;
    }
  };
}
