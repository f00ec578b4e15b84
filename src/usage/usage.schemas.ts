import * as yup from '../lib/yup';
import { trimmedText } from '../lib/fields';
import { timezoneField } from '../messages/messages.schemas';

export const USAGE_PERIODS = ['day', 'month'] as const;
export type UsagePeriod = (typeof USAGE_PERIODS)[number];

/** The most periods one answer lists: a leap year of days, ten years of months. */
export const USAGE_MAX_PERIODS: Record<UsagePeriod, number> = { day: 366, month: 120 };

/** A calendar day as YYYY-MM-DD that exists (no February 30th). */
const calendarDay = () =>
  trimmedText(10)
    .matches(/^\d{4}-\d{2}-\d{2}$/, '${path} must be a date such as 2026-11-28')
    .test('day', '${path} must be a date such as 2026-11-28', (value) => {
      if (value === undefined) return true;
      const date = new Date(`${value}T00:00:00Z`);
      return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(value);
    });

/** GET /v1/usage: the account's texts per day or per month from `from` to `to`, in `timezone`. */
export const usageQuery = yup.object({
  period: yup
    .string()
    .oneOf([...USAGE_PERIODS], '${path} must be one of: day, month')
    .default('day'),
  from: calendarDay(),
  to: calendarDay(),
  timezone: timezoneField(),
  format: yup.string().oneOf(['json', 'csv'], '${path} must be one of: json, csv'),
});
export type UsageQuery = yup.InferType<typeof usageQuery>;
