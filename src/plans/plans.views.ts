import type { Plan } from './plan.entity';
import type { Usage } from './plans.service';

export const planView = (plan: Plan) => ({
  id: plan.id,
  name: plan.name,
  active: plan.active,
  batch_limit: plan.batchLimit,
  daily_limit: plan.dailyLimit,
  device_limit: plan.deviceLimit,
  monthly_limit: plan.monthlyLimit,
  webhook_limit: plan.webhookLimit,
  monthly_price_cents: plan.monthlyPriceCents,
  yearly_price_cents: plan.yearlyPriceCents,
});

export const limitsView = (plan: Plan) => ({
  plan_id: plan.id,
  plan_name: plan.name,
  batch_limit: plan.batchLimit,
  daily_limit: plan.dailyLimit,
  device_limit: plan.deviceLimit,
  monthly_limit: plan.monthlyLimit,
  webhook_limit: plan.webhookLimit,
});

export const usageView = (usage: Usage) => ({
  received_this_month: usage.receivedThisMonth,
  received_today: usage.receivedToday,
  sent_this_month: usage.sentThisMonth,
  sent_today: usage.sentToday,
});
