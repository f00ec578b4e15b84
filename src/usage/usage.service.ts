import type { EntityManager } from '@mikro-orm/postgresql';
import { validationFailed } from '../http/errors';
import type { Clock } from '../lib/clock';
import { usageRepository } from './usage.repository';
import { USAGE_MAX_PERIODS, type UsagePeriod, type UsageQuery } from './usage.schemas';

const DAY = 86_400_000;
const dayOf = (date: string) => new Date(`${date}T00:00:00Z`);
const iso = (at: Date) => at.toISOString().slice(0, 10);

/** How many days or months `from` to `to` spans, both included. */
function periodsBetween(period: UsagePeriod, from: string, to: string): number {
  if (period === 'day') return Math.round((dayOf(to).getTime() - dayOf(from).getTime()) / DAY) + 1;
  const months = (date: string) => Number(date.slice(0, 4)) * 12 + Number(date.slice(5, 7));
  return months(to) - months(from) + 1;
}

/** The default start: 30 days, or 12 months, up to `to`. */
function defaultFrom(period: UsagePeriod, to: string): string {
  if (period === 'day') return iso(new Date(dayOf(to).getTime() - 29 * DAY));
  const at = dayOf(`${to.slice(0, 7)}-01`);
  at.setUTCMonth(at.getUTCMonth() - 11);
  return iso(at);
}

/** The account's usage: its texts per day or per month, for the dashboard and for export. */
export function createUsageService({ em, clock }: { em: () => EntityManager; clock: Clock }) {
  return {
    async usage(userId: string, query: UsageQuery) {
      const period = query.period as UsagePeriod;
      const today = new Intl.DateTimeFormat('en-CA', { timeZone: query.timezone }).format(clock.now());
      const to = query.to ?? today;
      const from = query.from ?? defaultFrom(period, to);
      if (from > to) throw validationFailed([{ field: 'query.from', message: 'query.from must not be after to' }]);
      const max = USAGE_MAX_PERIODS[period];
      if (periodsBetween(period, from, to) > max) {
        throw validationFailed([
          { field: 'query.from', message: `query.from must be at most ${max} ${period}s before to` },
        ]);
      }
      const rows = await usageRepository.counts(em(), userId, period, from, to, query.timezone);
      return { period, timezone: query.timezone, from, to, rows };
    },
  };
}

export type UsageService = ReturnType<typeof createUsageService>;
