import { EVENT_NAMES } from '../events/event.entity';
import { any, bool, id, int, nullable, object, ref, str, ts } from '../openapi/json-parts';
import { type Operation, hooks, list, noBody, op, page, tagged, text, wrap } from '../openapi/operation';
import type { JsonSchema } from '../openapi/yup-to-json-schema';
import { DELIVERY_STATUSES } from './delivery.entity';
import * as webhooks from './webhooks.schemas';

// The OpenAPI document's part of webhooks.routes.ts, and the resources of webhooks.views.ts.
const webhook = { 200: wrap('webhook', ref('Webhook')) };

export const webhooksOperations: Operation[] = tagged('Webhooks', [
  op('GET /v1/webhooks', hooks, 'List webhooks', { 200: list('Webhook') }),
  op(
    'POST /v1/webhooks',
    hooks,
    'Subscribe an https URL to events',
    { 201: object({ secret: text('The signing secret, shown once.'), webhook: ref('Webhook') }) },
    {
      body: webhooks.createWebhookBody,
      errors: [404],
      description:
        'Errors: plan_limit_webhooks (429); not_found (404) when device_id names no paired phone of the account.',
      idempotent: true,
    },
  ),
  op('GET /v1/webhooks/{id}', hooks, 'A webhook', webhook),
  op('PATCH /v1/webhooks/{id}', hooks, 'Change a webhook; enabled true clears an automatic pause', webhook, {
    body: webhooks.updateWebhookBody,
    description: 'Errors: not_found (404) when device_id names no paired phone of the account.',
  }),
  op('DELETE /v1/webhooks/{id}', hooks, 'Delete a webhook', noBody),
  op('POST /v1/webhooks/{id}/rotate-secret', hooks, 'Issue a new signing secret', {
    200: object({ secret: text('Used for deliveries queued from now on.') }),
  }),
  op('POST /v1/webhooks/{id}/test', hooks, 'Queue a ping delivery', { 202: wrap('delivery', ref('Delivery')) }),
  op(
    'GET /v1/webhooks/deliveries',
    hooks,
    'The delivery log, newest first',
    { 200: page('Delivery') },
    {
      query: webhooks.listDeliveriesQuery,
    },
  ),
  op('GET /v1/webhooks/deliveries/{id}', hooks, 'A delivery', { 200: wrap('delivery', ref('Delivery')) }),
  op(
    'POST /v1/webhooks/deliveries/{id}/redeliver',
    hooks,
    'Send a delivery again',
    { 202: wrap('delivery', ref('Delivery')) },
    {
      errors: [409],
      description:
        'Any delivery, delivered or failed (also those abandoned while the webhook was paused): a new delivery ' +
        'of the same event (same body and event id) to the same webhook, with a new delivery id, signed with the ' +
        "webhook's current secret, through the normal retry schedule and delivery log. Its redelivery_of names " +
        'the delivery it repeats. Of a delivery still open (retrying), it is one attempt made before the ' +
        "original's next: if it succeeds, the original is delivered through it (superseded_by) and retries no " +
        'more; if it fails, the original keeps its retries. ' +
        'Errors: webhook_deleted, webhook_disabled (409).',
    },
  ),
]);

export const webhooksResources: Record<string, JsonSchema> = {
  Webhook: object({
    id,
    url: str,
    name: nullable(str),
    device_id: {
      ...nullable(id),
      description:
        'The one phone whose events it receives (messages through it, texts received on it, its own events); ' +
        'null: every event of the account.',
    },
    events: { type: 'array', items: { type: 'string', enum: [...EVENT_NAMES] } },
    enabled: bool,
    disabled_reason: nullable(str),
    success_count: int,
    failure_count: int,
    last_attempt_at: nullable(ts),
    last_success_at: nullable(ts),
    last_failure_at: nullable(ts),
    created_at: ts,
    updated_at: ts,
  }),
  Delivery: object(
    {
      id,
      webhook_id: id,
      url: str,
      event: { type: 'string', enum: [...EVENT_NAMES] },
      status: { type: 'string', enum: [...DELIVERY_STATUSES] },
      message_id: nullable(id),
      device_id: nullable(id),
      payload: any('The body that was (or will be) sent.'),
      attempt_count: int,
      http_status: nullable(int),
      response_excerpt: nullable(str),
      error: nullable(str),
      created_at: ts,
      last_attempt_at: nullable(ts),
      next_attempt_at: nullable(ts),
      delivered_at: nullable(ts),
      abandoned_at: nullable(ts),
      redelivery_of: {
        ...nullable(id),
        description: 'A manual redelivery: the delivery it repeats (the same event to the same webhook).',
      },
      redeliveries: {
        type: 'array',
        items: id,
        description: 'The manual redeliveries of this delivery, oldest first.',
      },
      superseded_by: {
        ...nullable(id),
        description:
          'The redelivery that reached the receiver while this delivery was still open: this one is then ' +
          'delivered through it (delivered_at is when) and retries no more.',
      },
    },
    'One webhook delivery and its attempts.',
  ),
};
