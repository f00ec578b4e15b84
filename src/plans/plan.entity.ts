import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';

export const Plan = defineEntity({
  name: 'Plan',
  tableName: 'plans',
  properties: {
    id: p.string().primary(),
    name: p.string(),
    active: p.boolean(),
    sortOrder: p.integer(),
    batchLimit: p.integer(),
    dailyLimit: p.integer(),
    monthlyLimit: p.integer(),
    deviceLimit: p.integer(),
    webhookLimit: p.integer(),
    monthlyPriceCents: p.integer(),
    yearlyPriceCents: p.integer(),
  },
});
export type Plan = InferEntity<typeof Plan>;
