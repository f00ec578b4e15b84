import { Anchor, Card, Group, Progress, SimpleGrid, Stack, Table, Text } from '@mantine/core';
import { TableScroll } from '../components/table-scroll';
import { api, ok } from '../api/client';
import { BatchProgress } from '../components/batch-progress';
import { Page } from '../components/page';
import { Empty, Load } from '../components/states';
import { count, plural, when } from '../lib/format';
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

export function Overview() {
  const state = useLoad(
    async () => {
      const [me, devices, batches] = await Promise.all([
        ok(api.GET('/v1/auth/me')),
        ok(api.GET('/v1/devices')),
        ok(api.GET('/v1/batches', { params: { query: { limit: 5 } } })),
      ]);
      return { me, devices: devices.data, batches: batches.data };
    },
    [],
    LIVE_MS,
  );

  return (
    <Page title="Overview">
      <Load state={state}>
        {({ me, devices, batches }) => {
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
                <TableScroll label="Recent sends table" minWidth={320}>
                  <Table>
                    <Table.Thead>
                      <Table.Tr>
                        <Table.Th>Sent</Table.Th>
                        <Table.Th>To</Table.Th>
                        <Table.Th>Progress</Table.Th>
                      </Table.Tr>
                    </Table.Thead>
                    <Table.Tbody>
                      {batches.map((b) => (
                        <Table.Tr key={b.id}>
                          <Table.Td>
                            <Anchor component={Link} href={`/batches/${b.id}`} size="sm">
                              {when(b.created_at)}
                            </Anchor>
                          </Table.Td>
                          <Table.Td>{b.recipient_preview}</Table.Td>
                          <Table.Td miw={140}>
                            <BatchProgress batch={b} />
                          </Table.Td>
                        </Table.Tr>
                      ))}
                    </Table.Tbody>
                  </Table>
                </TableScroll>
              )}
            </Stack>
          );
        }}
      </Load>
    </Page>
  );
}
