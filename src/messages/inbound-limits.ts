// What a phone can receive, and so what an inbound text is stored as. A phone forwards a text it
// received once, retries a refusal a few times (the SMSGate app 15 times) and then drops it, and
// nobody on our side would know: so a text is never refused for its length, only kept within these
// bounds, and anything cut is logged and counted (phone_gateway_inbound_texts_cut_total).

/**
 * The longest text a phone can receive as SMS: a concatenated message has at most 255 parts
 * (an 8-bit reference's parts counter), each of 153 GSM-7 characters once the concatenation header
 * is taken out (UCS-2: 67 each, 17,085 in all). Longer text only comes as an MMS's text part.
 */
export const INBOUND_BODY_MAX = 255 * 153;

/**
 * The longest sender kept. Android gives the originating address as text: a number, an alphanumeric
 * sender id (at most 11 GSM-7 characters), a short code, or on some networks an e-mail address (at
 * most 254). Any of them is kept as it is, not as E.164.
 */
export const INBOUND_SENDER_MAX = 256;

/** `value` cut to at most `max` UTF-16 units, never between the halves of a surrogate pair. */
export function cutText(value: string, max: number): string {
  if (value.length <= max) return value;
  const end = /[\uD800-\uDBFF]/.test(value[max - 1]) ? max - 1 : max;
  return value.slice(0, end);
}
