import { Box, Card, Group, Text, Tooltip } from '@mantine/core';
import type { Schemas } from '../api/client';
import { count } from '../lib/format';
import { dayFailures } from '../lib/outcomes';

type Day = Schemas['DailyStats']['days'][number];

/**
 * Each text of a day once, by where it stands: the parts add up to the texts created that day, so no
 * text is counted twice ("sent" and "delivered" overlap, which read as double counting). Cancelled
 * and opted-out texts are no fault: they are drawn quietly, apart from the failures.
 */
const SERIES = [
  { key: 'delivered', label: 'Delivered', color: 'var(--mantine-color-teal-7)', always: true },
  { key: 'awaiting', label: 'Awaiting report', color: 'var(--mantine-color-indigo-5)', always: true },
  { key: 'pending', label: 'Queued', color: 'var(--mantine-color-cyan-4)', always: false },
  { key: 'faults', label: 'Failed', color: 'var(--mantine-color-red-7)', always: true },
  { key: 'unknown', label: 'No outcome', color: 'var(--mantine-color-orange-5)', always: false },
  { key: 'cancelled', label: 'Cancelled', color: 'var(--mantine-color-gray-5)', always: false },
  { key: 'optedOut', label: 'Opted out', color: 'var(--mantine-color-gray-4)', always: false },
] as const;

type Key = (typeof SERIES)[number]['key'];
type Drawn = { date: string; total: number } & Record<Key, number>;

const HEIGHT = 160;

const drawn = (d: Day): Drawn => {
  const parts = {
    delivered: d.delivered,
    awaiting: d.awaiting_report,
    pending: d.pending,
    faults: dayFailures(d),
    unknown: d.unknown,
    cancelled: d.cancelled,
    optedOut: d.opted_out,
  };
  return { date: d.date, ...parts, total: Object.values(parts).reduce((a, b) => a + b, 0) };
};

const noon = (date: string) => new Date(`${date}T12:00:00Z`);
/** "Thu, Nov 26" for a YYYY-MM-DD day (a calendar day: no time zone shift). */
const longDay = (date: string) =>
  noon(date).toLocaleDateString(undefined, { weekday: 'short', month: 'short', day: 'numeric', timeZone: 'UTC' });
const shortDay = (date: string) =>
  noon(date).toLocaleDateString(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' });
const dayOnly = (date: string) => noon(date).toLocaleDateString(undefined, { day: 'numeric', timeZone: 'UTC' });

/** The axis's top and its steps: 1, 2 or 5 times a power of ten, at most four steps. */
export function axisTicks(max: number): number[] {
  const top = Math.max(1, max);
  const magnitude = 10 ** Math.floor(Math.log10(top / 4 || 1));
  const step = [1, 2, 5, 10].map((m) => Math.max(1, m * magnitude)).find((s) => s * 4 >= top) ?? top;
  const ticks: number[] = [];
  for (let v = 0; v < top + step; v += step) ticks.push(v);
  return ticks;
}

/** A day's parts in words: "2 delivered, 1 failed" (the parts it has), or "no texts". */
const partsInWords = (d: Drawn) =>
  SERIES.filter((s) => d[s.key] > 0)
    .map((s) => `${count(d[s.key])} ${s.label.toLowerCase()}`)
    .join(', ') || 'no texts';

/**
 * The texts of each day as stacked bars on a value axis, drawn in HTML so that labels keep their size
 * at any width. Each day's bar is focusable and names its numbers; hover or focus shows them.
 * `inUtc`: the days are UTC's, not the browser's time zone's (the server did not know that zone).
 */
export function DailyChart({ days: given, inUtc = false }: { days: Day[]; inUtc?: boolean }) {
  const days = given.map(drawn);
  const ticks = axisTicks(Math.max(0, ...days.map((d) => d.total)));
  const top = ticks[ticks.length - 1];
  const totals = Object.fromEntries(SERIES.map((s) => [s.key, days.reduce((sum, d) => sum + d[s.key], 0)])) as Record<
    Key,
    number
  >;
  const all = days.reduce((sum, d) => sum + d.total, 0);
  const shown = SERIES.filter((s) => s.always || totals[s.key] > 0);
  const summary =
    `Texts per day, last ${days.length} days: ${count(all)} ${all === 1 ? 'text' : 'texts'}` +
    (all > 0 ? `: ${partsInWords({ date: '', total: all, ...totals })}.` : '.');
  // Every other day is labelled, today's included, with its month where the month starts or changes.
  const labelled = (i: number) => i % 2 === (days.length - 1) % 2;
  const label = (i: number) => {
    const first = days.findIndex((_, j) => labelled(j));
    const before = days[i - 2];
    return i === first || (before && before.date.slice(5, 7) !== days[i].date.slice(5, 7))
      ? shortDay(days[i].date)
      : dayOnly(days[i].date);
  };
  return (
    <Card withBorder component="figure" m={0} aria-labelledby="daily-chart-title">
      <Text fw={600} component="h2" id="daily-chart-title">
        Texts per day
      </Text>
      <Group gap="sm" mt={4} component="ul" style={{ listStyle: 'none', padding: 0, margin: 0 }} aria-label="Legend">
        {shown.map((s) => (
          <Group gap={4} key={s.key} component="li" wrap="nowrap" data-testid="chart-legend">
            <span
              aria-hidden="true"
              style={{ width: 10, height: 10, background: s.color, display: 'inline-block', borderRadius: 2 }}
            />
            <Text size="xs">
              {s.label} {count(totals[s.key])}
            </Text>
          </Group>
        ))}
      </Group>
      <Box style={{ display: 'flex', gap: 6, marginTop: 12 }}>
        {/* The value axis: its numbers at their heights, with lines across the plot behind the bars. */}
        <Box aria-hidden="true" style={{ position: 'relative', width: '2.5rem', height: HEIGHT, flex: 'none' }}>
          {ticks.map((t) => (
            <Text
              key={t}
              size="xs"
              data-testid="chart-tick"
              style={{ position: 'absolute', right: 0, bottom: `calc(${(t / top) * 100}% - 0.5em)`, lineHeight: 1 }}
            >
              {count(t)}
            </Text>
          ))}
        </Box>
        <Box style={{ flex: 1, minWidth: 0 }}>
          <Box style={{ position: 'relative', height: HEIGHT }}>
            {ticks.map((t) => (
              <Box
                key={t}
                aria-hidden="true"
                style={{
                  position: 'absolute',
                  left: 0,
                  right: 0,
                  bottom: `${(t / top) * 100}%`,
                  borderTop: '1px solid var(--mantine-color-default-border)',
                }}
              />
            ))}
            <Box
              role="list"
              aria-label={summary}
              data-testid="daily-chart"
              style={{ position: 'relative', display: 'flex', height: '100%', alignItems: 'flex-end' }}
            >
              {days.map((d) => (
                <Tooltip
                  key={d.date}
                  label={`${longDay(d.date)}: ${partsInWords(d)}`}
                  events={{ hover: true, focus: true, touch: true }}
                  multiline
                  maw={220}
                  withArrow
                >
                  <Box
                    role="listitem"
                    tabIndex={0}
                    aria-label={`${longDay(d.date)}: ${partsInWords(d)}`}
                    data-testid="chart-day"
                    data-date={d.date}
                    data-total={d.total}
                    data-delivered={d.delivered}
                    data-awaiting={d.awaiting}
                    data-pending={d.pending}
                    data-failed={d.faults}
                    data-unknown={d.unknown}
                    data-cancelled={d.cancelled}
                    data-opted-out={d.optedOut}
                    style={{
                      flex: 1,
                      height: '100%',
                      display: 'flex',
                      flexDirection: 'column-reverse',
                      alignItems: 'center',
                      borderRadius: 2,
                    }}
                  >
                    {SERIES.filter((s) => d[s.key] > 0).map((s) => (
                      <span
                        key={s.key}
                        data-testid={`chart-part-${s.key}`}
                        style={{
                          width: '60%',
                          maxWidth: 28,
                          height: `${(d[s.key] / top) * 100}%`,
                          background: s.color,
                          display: 'block',
                        }}
                      />
                    ))}
                  </Box>
                </Tooltip>
              ))}
            </Box>
          </Box>
          <div
            aria-hidden="true"
            style={{ display: 'grid', gridTemplateColumns: `repeat(${days.length}, 1fr)`, fontSize: 11, marginTop: 4 }}
          >
            {days.map((d, i) => (
              <span key={d.date} data-testid="chart-date" style={{ textAlign: 'center', whiteSpace: 'nowrap' }}>
                {labelled(i) ? label(i) : ''}
              </span>
            ))}
          </div>
        </Box>
      </Box>
      <Text size="xs" c="dimmed" component="figcaption" mt={4}>
        {summary} Hover over or focus a day for its numbers.
        {inUtc && (
          <span data-testid="chart-zone"> Days are in UTC: the server does not know this browser’s time zone.</span>
        )}
      </Text>
    </Card>
  );
}
