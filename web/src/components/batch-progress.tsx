import { Group, Progress, Text } from '@mantine/core';
import type { Schemas } from '../api/client';

const PARTS = [
  { key: 'delivered_count', label: 'delivered', color: 'teal' },
  { key: 'sent_count', label: 'sent', color: 'blue' },
  { key: 'dispatched_count', label: 'on the phone', color: 'cyan' },
  { key: 'failed_count', label: 'failed', color: 'red' },
  { key: 'unknown_count', label: 'unknown', color: 'gray' },
] as const;

/** One bar per batch, one section per status; the queued rest stays empty. */
export function BatchProgress({ batch }: { batch: Schemas['Batch'] }) {
  const total = Math.max(1, batch.recipient_count);
  const summary = PARTS.filter((p) => batch[p.key] > 0)
    .map((p) => `${batch[p.key]} ${p.label}`)
    .join(', ');
  return (
    <div>
      <Progress.Root size="lg">
        {PARTS.map((p) =>
          batch[p.key] > 0 ? (
            <Progress.Section
              key={p.key}
              value={(batch[p.key] / total) * 100}
              color={p.color}
              aria-label={`${batch[p.key]} of ${batch.recipient_count} ${p.label}`}
            />
          ) : null,
        )}
      </Progress.Root>
      <Group gap="xs" mt={4}>
        <Text size="xs" c="dimmed">
          {summary || 'queued'} · {batch.recipient_count} recipient{batch.recipient_count === 1 ? '' : 's'}
        </Text>
      </Group>
    </div>
  );
}
