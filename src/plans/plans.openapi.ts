import { bool, int, object, str } from '../openapi/json-parts';
import { type Operation, list, op, tagged } from '../openapi/operation';
import type { JsonSchema } from '../openapi/yup-to-json-schema';

// The OpenAPI document's part of plans.routes.ts, and the resources of plans.views.ts.
export const plansOperations: Operation[] = tagged('Plans', [
  op('GET /v1/plans', 'none', 'The public plan catalogue', { 200: list('Plan') }),
]);

export const plansResources: Record<string, JsonSchema> = {
  Plan: object({
    id: str,
    name: str,
    active: bool,
    batch_limit: int,
    daily_limit: int,
    device_limit: int,
    monthly_limit: int,
    webhook_limit: int,
    monthly_price_cents: int,
    yearly_price_cents: int,
  }),
  Limits: object(
    {
      plan_id: str,
      plan_name: str,
      batch_limit: int,
      daily_limit: int,
      device_limit: int,
      monthly_limit: int,
      webhook_limit: int,
    },
    "The account's plan.",
  ),
  UsageView: object({ received_this_month: int, received_today: int, sent_this_month: int, sent_today: int }),
};
