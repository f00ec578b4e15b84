import * as yup from '../lib/yup';
import { EVENT_NAMES } from '../events/event.entity';
import { pageFields } from '../http/pagination';
import { text, timestamp, trimmedText, uuid } from '../lib/fields';
import { DELIVERY_STATUSES } from './delivery.entity';
import { isLoopbackHttp } from './outbound';

const eventName = () =>
  text(64)
    .oneOf([...EVENT_NAMES], '${path} must be one of: ' + EVENT_NAMES.join(', '))
    .required();

// The address rule (public addresses only, http only to this machine where the operator allows it)
// needs DNS and the settings, and lives in the service; this is the shape.
const url = () =>
  trimmedText(2048).test('https', '${path} must be an https URL', (value) => {
    if (value === undefined) return true;
    try {
      const parsed = new URL(value);
      return parsed.protocol === 'https:' || isLoopbackHttp(parsed);
    } catch {
      return false;
    }
  });

const events = () =>
  yup
    .array(eventName())
    .min(1, '${path} must name at least one event')
    .max(EVENT_NAMES.length * 4, '${path} must name each event once');
const name = () => trimmedText(100).nullable();
/** The one phone of the account whose events it receives; null: every phone. */
const deviceId = () => uuid().nullable();

export const createWebhookBody = yup.object({
  url: url().required(),
  events: events().required(),
  name: name(),
  device_id: deviceId(),
});

export const updateWebhookBody = yup.object({
  url: url(),
  events: events(),
  name: name(),
  device_id: deviceId(),
  enabled: yup.boolean().typeError('${path} must be true or false'),
});

export const listDeliveriesQuery = yup.object({
  ...pageFields(),
  webhook_id: uuid(),
  /** The deliveries of one message's events (the dashboard's message detail). */
  message_id: uuid(),
  status: text(32).oneOf([...DELIVERY_STATUSES], '${path} must be one of: ' + DELIVERY_STATUSES.join(', ')),
  event: text(64).oneOf([...EVENT_NAMES], '${path} must be one of: ' + EVENT_NAMES.join(', ')),
  from: timestamp(),
  to: timestamp(),
});

export type CreateWebhookBody = yup.InferType<typeof createWebhookBody>;
export type UpdateWebhookBody = yup.InferType<typeof updateWebhookBody>;
export type ListDeliveriesQuery = yup.InferType<typeof listDeliveriesQuery>;
