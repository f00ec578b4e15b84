import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';
import { api, ok } from '../api/client';

let country: Promise<string | null> | undefined;

/** The region of the browser's language ("en-GB" → GB), if it names or implies one. */
function browserRegion(): string | null {
  try {
    return new Intl.Locale(navigator.language).maximize().region ?? null;
  } catch {
    return null;
  }
}

/**
 * The country numbers written without + and a country code are read in: the server's
 * DEFAULT_COUNTRY (asked once per page load), else the browser's region. The dashboard sends E.164,
 * so what it reads is what the API gets.
 */
export function defaultCountry(): Promise<string | null> {
  country ??= ok(api.GET('/v1/auth/config')).then(
    (config) => config.default_country ?? browserRegion(),
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

/** Why a typed entry is not a number, in words, naming the country national numbers are read in. */
export function notANumber(raw: string, country: string | null): string {
  const how = country ? `with + and its country code, or as a ${country} number` : 'with + and its country code';
  return `“${raw}” is not a phone number: write it ${how}, e.g. +14155550123.`;
}
