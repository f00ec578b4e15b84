import { Group, Progress, Text } from '@mantine/core';
import type { Schemas } from '../api/client';
import { count, plural } from '../lib/format';

const PARTS = [
  { key: 'delivered_count', label: 'delivered', color: 'teal' },
  { key: 'sent_count', label: 'sent', color: 'blue' },
  { key: 'dispatched_count', label: 'on the phone', color: 'cyan' },
  { key: 'failed_count', label: 'failed', color: 'red' },
  { key: 'unknown_count', label: 'unknown', color: 'gray' },
] as const;

/**
 * A batch's status in words that match its counts. The API's "completed" means only that no text is
 * left to send: all of them may still await their delivery reports, or some may have failed.
 */
export function batchOutcome(batch: Schemas['Batch']): string {
  if (batch.status !== 'completed') return batch.status;
  if (batch.failed_count > 0) return 'partly failed';
  if (batch.delivered_count === batch.recipient_count) return 'delivered';
  if (batch.sent_count > 0) return 'sent';
  return 'completed';
}

/** One bar per batch, one section per status; the queued rest stays empty. */
export function BatchProgress({ batch }: { batch: Schemas['Batch'] }) {
  const total = Math.max(1, batch.recipient_count);
  const summary = PARTS.filter((p) => batch[p.key] > 0)
    .map((p) => `${count(batch[p.key])} ${p.label}`)
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
              aria-label={`${count(batch[p.key])} of ${count(batch.recipient_count)} ${p.label}`}
            />
          ) : null,
        )}
      </Progress.Root>
      <Group gap="xs" mt={4}>
        <Text size="xs" c="dimmed">
          {summary || 'queued'} · {plural(batch.recipient_count, 'recipient')}
        </Text>
      </Group>
    </div>
  );
}
