import { Card, Group, Text } from '@mantine/core';
import type { Schemas } from '../api/client';
import { count } from '../lib/format';
import { dayFailures } from '../lib/outcomes';

type Day = Schemas['DailyStats']['days'][number];
/** A day as drawn: its failures without the cancelled and the opted-out, which are no fault. */
type Drawn = Day & { faults: number };

const SERIES = [
  { key: 'sent', label: 'Sent', color: 'var(--mantine-color-indigo-6)' },
  { key: 'delivered', label: 'Delivered', color: 'var(--mantine-color-teal-6)' },
  { key: 'faults', label: 'Failed', color: 'var(--mantine-color-red-6)' },
] as const;

const HEIGHT = 140;

/** "Nov 26" for a YYYY-MM-DD day (a calendar day: no time zone shift). */
const dayLabel = (date: string) =>
  new Date(`${date}T12:00:00Z`).toLocaleDateString(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' });

/**
 * Sent, delivered and failed texts of each day as grouped bars, drawn in plain SVG that scales to
 * its card's width. Each day's numbers are its bars' tooltip and the figure's text for screen readers.
 * `inUtc`: the days are UTC's, not the browser's time zone's (the server did not know that zone).
 */
export function DailyChart({ days: given, inUtc = false }: { days: Day[]; inUtc?: boolean }) {
  const days: Drawn[] = given.map((d) => ({ ...d, faults: dayFailures(d) }));
  const top = Math.max(1, ...days.flatMap((d) => [d.sent, d.delivered, d.faults]));
  const slot = 30;
  const bar = 8;
  const width = days.length * slot;
  const totals = SERIES.map((s) => `${count(days.reduce((sum, d) => sum + d[s.key], 0))} ${s.label.toLowerCase()}`);
  const cancelled = days.reduce((sum, d) => sum + d.cancelled, 0);
  const optedOut = days.reduce((sum, d) => sum + d.opted_out, 0);
  const apart = [
    ...(cancelled > 0 ? [`${count(cancelled)} cancelled`] : []),
    ...(optedOut > 0 ? [`${count(optedOut)} to numbers that opted out`] : []),
  ];
  const summary = `Texts per day, last ${days.length} days: ${totals.join(', ')}${apart.length ? ` (not failed: ${apart.join(', ')})` : ''}.`;
  return (
    <Card withBorder component="figure" m={0} aria-label="Texts per day">
      <Group justify="space-between" wrap="wrap" gap="xs">
        <Text fw={600} component="h2">
          Texts per day
        </Text>
        <Group gap="sm" aria-hidden="true">
          {SERIES.map((s) => (
            <Group gap={4} key={s.key}>
              <span style={{ width: 10, height: 10, background: s.color, display: 'inline-block', borderRadius: 2 }} />
              <Text size="xs">{s.label}</Text>
            </Group>
          ))}
        </Group>
      </Group>
      <svg
        viewBox={`0 0 ${width} ${HEIGHT}`}
        width="100%"
        height={HEIGHT}
        preserveAspectRatio="none"
        role="img"
        aria-label={summary}
        data-testid="daily-chart"
        style={{ display: 'block', marginTop: 8 }}
      >
        <line x1={0} x2={width} y1={HEIGHT} y2={HEIGHT} stroke="var(--mantine-color-default-border)" />
        {days.map((d, i) => (
          <g
            key={d.date}
            data-testid="chart-day"
            data-date={d.date}
            data-sent={d.sent}
            data-delivered={d.delivered}
            data-failed={d.faults}
            data-cancelled={d.cancelled}
            data-opted-out={d.opted_out}
          >
            <title>{`${dayLabel(d.date)}: ${count(d.sent)} sent, ${count(d.delivered)} delivered, ${count(d.faults)} failed, ${count(d.cancelled)} cancelled, ${count(d.opted_out)} opted out`}</title>
            {/* The whole slot takes the pointer, so a day with no bars still shows its tooltip. */}
            <rect x={i * slot} y={0} width={slot} height={HEIGHT} fill="transparent" />
            {SERIES.map((s, j) => {
              const h = (d[s.key] / top) * (HEIGHT - 4);
              return (
                <rect key={s.key} x={i * slot + 3 + j * bar} y={HEIGHT - h} width={bar - 1} height={h} fill={s.color} />
              );
            })}
          </g>
        ))}
      </svg>
      {/* Day numbers in HTML under their bars (the SVG stretches to the card's width, text must not),
          every other one with today's: fourteen fit a phone's width. */}
      <div
        aria-hidden="true"
        style={{ display: 'grid', gridTemplateColumns: `repeat(${days.length}, 1fr)`, fontSize: 11, marginTop: 2 }}
      >
        {days.map((d, i) => (
          <span key={d.date} style={{ textAlign: 'center', whiteSpace: 'nowrap' }}>
            {i % 2 === (days.length - 1) % 2 ? dayLabel(d.date).replace(/^\D+\s/, '') : ''}
          </span>
        ))}
      </div>
      <Text size="xs" c="dimmed" component="figcaption" mt={4}>
        {summary}
        {inUtc && (
          <span data-testid="chart-zone"> Days are in UTC: the server does not know this browser’s time zone.</span>
        )}
      </Text>
    </Card>
  );
}
