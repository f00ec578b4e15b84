import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { createdAt, id } from '../db/base.entity';

export const EVENT_NAMES = [
  'message.received',
  'message.sent',
  'message.delivered',
  'message.failed',
  'message.unknown',
  // Extension: the phone received a data SMS (binary, to an application port): the message's `data`.
  'message.data_received',
  // Extension: a message moved to another phone by failover (account setting), for subscribers who ask.
  'message.rerouted',
  // Extensions: a phone told of an MMS not yet downloaded; an MMS downloaded and stored (with
  // message.received, for subscribers who want MMS alone: SMSGate's mms:* webhooks).
  'mms.received',
  'mms.downloaded',
  'device.online',
  'device.offline',
  // Extension: the SMSGate app (re)started on a phone (its app:started), with the SIMs it has now.
  'device.app_started',
  'ping',
] as const;
export type EventName = (typeof EVENT_NAMES)[number];

export const Event = defineEntity({
  name: 'Event',
  tableName: 'events',
  properties: {
    id: id(),
    userId: p.uuid(),
    name: p.string().$type<EventName>(),
    data: p.json<Record<string, unknown>>(),
    messageId: p.uuid().nullable(),
    deviceId: p.uuid().nullable(),
    createdAt: createdAt(),
  },
});
export type Event = InferEntity<typeof Event>;
