import { Anchor, Button, Card, Group, Stack, Text } from '@mantine/core';
import { api, ok, type Schemas } from '../api/client';
import { count, plural } from '../lib/format';
import { Link } from '../lib/router';
import { LIVE_MS, useLoad } from '../lib/use-load';
import { BatchProgress } from './batch-progress';
import { FormError, Load } from './states';

/** `items` in runs of at most `size`, in order: a list too long for one send as sends the plan allows. */
export function chunks<T>(items: T[], size: number): T[][] {
  const runs: T[][] = [];
  for (let i = 0; i < items.length; i += Math.max(1, size)) runs.push(items.slice(i, i + Math.max(1, size)));
  return runs;
}

const COUNTS = [
  'recipient_count',
  'dispatched_count',
  'sent_count',
  'delivered_count',
  'failed_count',
  'cancelled_count',
  'opted_out_count',
  'unknown_count',
] as const;

/** The sends' counts added up, as one batch for the one progress bar. */
function together(batches: Schemas['Batch'][]): Schemas['Batch'] {
  const sum = { ...batches[0] };
  for (const key of COUNTS) sum[key] = batches.reduce((total, b) => total + b[key], 0);
  return sum;
}

/**
 * The progress of one list sent as several sends (one batch each): one bar for all of them, then
 * each send's own, live. `error` is why the sends after the last one made were not made.
 */
export function SplitProgress({
  ids,
  planned,
  error,
  onDone,
}: {
  ids: string[];
  planned: number;
  error: unknown;
  onDone(): void;
}) {
  const state = useLoad(
    () =>
      Promise.all(ids.map((id) => ok(api.GET('/v1/batches/{id}', { params: { path: { id } } })).then((r) => r.batch))),
    [ids.join(',')],
    LIVE_MS,
  );
  return (
    <Card withBorder maw={720} data-testid="split-progress">
      <Load state={state}>
        {(batches) => (
          <Stack>
            <Text fw={600} component="h2">
              {plural(together(batches).recipient_count, 'recipient')} in {plural(batches.length, 'send')}
            </Text>
            <BatchProgress batch={together(batches)} />
            {ids.length < planned && (
              <Text size="sm" c="var(--pg-danger)" data-testid="split-unsent">
                {plural(planned - ids.length, 'send')} of {count(planned)} could not be made:
              </Text>
            )}
            <FormError error={error} />
            <Stack gap="xs" component="ol" style={{ listStyle: 'none', padding: 0, margin: 0 }} aria-label="The sends">
              {batches.map((b, i) => (
                <li key={b.id} data-testid="split-send">
                  <Anchor component={Link} href={`/batches/${b.id}`} size="sm">
                    Send {i + 1} of {count(batches.length)}: {plural(b.recipient_count, 'recipient')}
                  </Anchor>
                  <BatchProgress batch={b} />
                </li>
              ))}
            </Stack>
            <Group>
              <Button variant="default" onClick={onDone}>
                Send another text
              </Button>
            </Group>
          </Stack>
        )}
      </Load>
    </Card>
  );
}
