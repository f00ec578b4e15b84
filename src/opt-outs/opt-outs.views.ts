import type { OptOut } from './opt-out.entity';

/** The only serialiser of the suppression list. */
export const optOutView = (optOut: OptOut) => ({
  phone_number: optOut.phoneNumber,
  source: optOut.source,
  message_id: optOut.messageId ?? null,
  created_at: optOut.createdAt.toISOString(),
});
