import { useRef } from 'react';
import { Anchor, Card, Group, Progress, SimpleGrid, Stack, Text } from '@mantine/core';
import { DataTable } from '../components/data-table';
import { api, ApiFailure, ok } from '../api/client';
import { BatchProgress } from '../components/batch-progress';
import { DailyChart } from '../components/daily-chart';
import { Page } from '../components/page';
import { Empty, Load } from '../components/states';
import { count, plural, timeZone, when } from '../lib/format';
import { Link } from '../lib/router';
import { LIVE_MS, useLoad } from '../lib/use-load';

function Usage({ label, used, limit }: { label: string; used: number; limit: number }) {
  const percent = limit > 0 ? Math.min(100, (used / limit) * 100) : 0;
  return (
    <Card withBorder>
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      <Text fw={700} size="xl" data-testid={`usage-${label.toLowerCase().replace(/\s+/g, '-')}`}>
        {count(used)} / {count(limit)}
      </Text>
      <Text size="xs" c="dimmed" data-testid={`usage-${label.toLowerCase().replace(/\s+/g, '-')}-left`}>
        {plural(Math.max(0, limit - used), 'message')} left
      </Text>
      <Progress
        value={percent}
        color={percent >= 90 ? 'red' : undefined}
        aria-label={`${label}: ${count(used)} of ${count(limit)}`}
        mt="xs"
      />
    </Card>
  );
}

const dailyIn = (timezone: string) =>
  ok(api.GET('/v1/stats/daily', { params: { query: { days: 14, timezone } } }));

/**
 * The chart's days in the browser's time zone, or in UTC when the server refuses that zone (an offset
 * such as "+05:30", or a name its zone list does not have yet). `zone` keeps the zone the server took,
 * so the next poll does not ask with the refused one again.
 */
async function dailyStats(zone: { current: string }) {
  try {
    const stats = await dailyIn(zone.current);
    return { days: stats.days, utcInstead: zone.current !== timeZone };
  } catch (error) {
    if (zone.current === 'UTC' || !(error instanceof ApiFailure) || !error.field('timezone')) throw error;
    zone.current = 'UTC';
    return { days: (await dailyIn('UTC')).days, utcInstead: true };
  }
}

export function Overview() {
  const zone = useRef(timeZone);
  const state = useLoad(
    async () => {
      const [me, devices, batches, daily] = await Promise.all([
        ok(api.GET('/v1/auth/me')),
        ok(api.GET('/v1/devices')),
        ok(api.GET('/v1/batches', { params: { query: { limit: 5 } } })),
        dailyStats(zone),
      ]);
      return { me, devices: devices.data, batches: batches.data, daily };
    },
    [],
    LIVE_MS,
  );

  return (
    <Page title="Overview">
      <Load state={state}>
        {({ me, devices, batches, daily }) => {
          const online = devices.filter((d) => d.online).length;
          return (
            <Stack>
              <Text size="sm" c="dimmed">
                Plan: {me.limits.plan_name}
              </Text>
              <SimpleGrid cols={{ base: 1, xs: 2, md: 4 }}>
                <Usage label="Sent today" used={me.usage.sent_today} limit={me.limits.daily_limit} />
                <Usage label="Sent this month" used={me.usage.sent_this_month} limit={me.limits.monthly_limit} />
                <Card withBorder>
                  <Text size="sm" c="dimmed">
                    Phones online
                  </Text>
                  <Text fw={700} size="xl" data-testid="phones-online">
                    {online} / {devices.length}
                  </Text>
                  <Text size="xs" c="dimmed">
                    Plan allows {me.limits.device_limit}
                  </Text>
                </Card>
                <Card withBorder>
                  <Text size="sm" c="dimmed">
                    Received
                  </Text>
                  <Text fw={700} size="xl">
                    {count(me.usage.received_today)} today
                  </Text>
                  <Text size="xs" c="dimmed">
                    {count(me.usage.received_this_month)} this month
                  </Text>
                </Card>
              </SimpleGrid>
              <DailyChart days={daily.days} inUtc={daily.utcInstead} />
              <Group justify="space-between">
                <Text fw={600} component="h2">
                  Recent sends
                </Text>
                <Anchor component={Link} href="/batches" size="sm">
                  All batches
                </Anchor>
              </Group>
              {batches.length === 0 ? (
                <Empty title="Nothing sent yet">
                  {devices.length === 0 ? (
                    <>
                      Start by{' '}
                      <Anchor component={Link} href="/phones">
                        pairing a phone
                      </Anchor>
                      .
                    </>
                  ) : (
                    <>
                      <Anchor component={Link} href="/send">
                        Send a text
                      </Anchor>{' '}
                      to see it here.
                    </>
                  )}
                </Empty>
              ) : (
                <DataTable
                  label="Recent sends"
                  rows={batches}
                  rowKey={(b) => b.id}
                  minWidth={320}
                  columns={[
                    {
                      label: 'Sent',
                      card: 'title',
                      cell: (b) => (
                        <Anchor component={Link} href={`/batches/${b.id}`} size="sm">
                          {when(b.created_at)}
                        </Anchor>
                      ),
                    },
                    { label: 'To', card: 'title', cell: (b) => b.recipient_preview },
                    { label: 'Progress', miw: 140, cell: (b) => <BatchProgress batch={b} /> },
                  ]}
                />
              )}
            </Stack>
          );
        }}
      </Load>
    </Page>
  );
}
