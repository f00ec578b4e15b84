import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { createdAt, id } from '../db/base.entity';

/** How a number got on the list: an opt-out keyword it texted, or the API (or dashboard). */
export const OPT_OUT_SOURCES = ['inbound', 'api'] as const;
export type OptOutSource = (typeof OPT_OUT_SOURCES)[number];

/** A number on an account's suppression list: sends to it are not made. */
export const OptOut = defineEntity({
  name: 'OptOut',
  tableName: 'opt_outs',
  properties: {
    id: id(),
    userId: p.uuid(),
    /** E.164, as recipients are normalised. */
    phoneNumber: p.string(),
    source: p.string().$type<OptOutSource>(),
    /** The inbound text that opted out (source inbound). */
    messageId: p.uuid().nullable(),
    createdAt: createdAt(),
  },
});
export type OptOut = InferEntity<typeof OptOut>;
