// The Idempotency-Key header: its name, its rule, and the header that marks a replayed answer.

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';
export const MAX_KEY_LENGTH = 255;
/** Printable ASCII and spaces: what a UUID, a ULID or an order number is made of. */
export const KEY_PATTERN = `^[\\x20-\\x7e]{1,${MAX_KEY_LENGTH}}$`;
