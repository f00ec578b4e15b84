import * as webhooks from '../../webhooks/webhooks.schemas';
import { object, ref } from '../resources';
import { type Operation, hooks, list, noBody, op, page, tagged, text, webhook, wrap } from '../operation';

// Webhooks and their deliveries.
export const webhooksOperations: Operation[] = [
  ...tagged('Webhooks', [
    op('GET /v1/webhooks', hooks, 'List webhooks', { 200: list('Webhook') }),
    op(
      'POST /v1/webhooks',
      hooks,
      'Subscribe an https URL to events',
      { 201: object({ secret: text('The signing secret, shown once.'), webhook: ref('Webhook') }) },
      {
        body: webhooks.createWebhookBody,
        errors: [404],
        description: 'Errors: plan_limit_webhooks (429); not_found (404) when device_id names no paired phone of the account.',
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
  ]),
];
