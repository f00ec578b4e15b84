import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';
import { api, ok } from '../api/client';

let country: Promise<string | null> | undefined;

/**
 * The country the server reads numbers without a country code in (DEFAULT_COUNTRY), asked once per
 * page load: the dashboard reads what people type as the API will.
 */
export function defaultCountry(): Promise<string | null> {
  country ??= ok(api.GET('/v1/auth/config')).then(
    (config) => config.default_country,
    (error: unknown) => {
      country = undefined;
      throw error;
    },
  );
  return country;
}

/** One number as E.164, read as the API reads it (national formats in `country`), or null. */
export function toE164(raw: string, country: string | null): string | null {
  const parsed = parsePhoneNumberFromString(raw.trim(), (country ?? undefined) as CountryCode | undefined);
  return parsed && parsed.isValid() ? parsed.number : null;
}

/**
 * Why a text from `sender` cannot be answered, or null when it can: the API sends only to valid
 * phone numbers, and a sender name, a short code or a number in no country's plan is none.
 */
export function whyNoReply(sender: string, country: string | null): string | null {
  if (toE164(sender, country)) return null;
  if (/[a-z]/i.test(sender)) return `${sender} is a sender name, not a phone number: texts cannot be sent to it.`;
  if (sender.replace(/\D/g, '').length <= 6)
    return `${sender} is a short code: texts cannot be sent to it from a phone.`;
  return `${sender} is not a number texts can be sent to: no country's numbering plan gives it to a phone.`;
}
