import * as yup from 'yup';
import { pageFields } from '../http/pagination';
import { timestamp } from '../lib/fields';

export const outboxQuery = yup.object({
  limit: yup
    .number()
    .typeError('${path} must be a whole number')
    .integer('${path} must be a whole number')
    .min(1, '${path} must be at least 1')
    .max(500, '${path} must be at most 500')
    .default(100),
});

export const statusBody = yup.object({
  status: yup
    .string()
    .oneOf(['sent', 'delivered', 'failed'] as const, '${path} must be sent, delivered or failed')
    .required(),
  at: timestamp().nullable(),
  error_code: yup.string().max(100).nullable(),
  error_message: yup.string().max(1000).nullable(),
});

/** POST /v1/device/messages/status: many reports at once, each as the single report's body plus the message id. */
export const reportsBody = yup.object({
  reports: yup
    .array(statusBody.shape({ id: yup.string().uuid('${path} must be a message id').required() }))
    .min(1, '${path} must hold at least one report')
    .max(500, '${path} may hold at most 500 reports')
    .required(),
});

export const inboundBody = yup.object({
  body: yup.string().max(10_000).required(),
  received_at: timestamp().required(),
  sender: yup.string().trim().min(1).max(64).required(),
  fingerprint: yup.string().max(200).nullable(),
  sim_subscription_id: yup.number().integer().min(0).nullable(),
});

export const deviceMessagesQuery = yup.object({
  ...pageFields(),
  direction: yup.string().oneOf(['outbound', 'inbound']),
});
