import { Group, Progress, Text } from '@mantine/core';
import type { Schemas } from '../api/client';
import { count, plural } from '../lib/format';
import { realFailures } from '../lib/outcomes';

type Batch = Schemas['Batch'];

const PARTS: Array<{ label: string; color: string; of: (b: Batch) => number }> = [
  { label: 'delivered', color: 'teal', of: (b) => b.delivered_count },
  { label: 'sent', color: 'blue', of: (b) => b.sent_count },
  { label: 'on the phone', color: 'cyan', of: (b) => b.dispatched_count },
  { label: 'failed', color: 'red', of: realFailures },
  { label: 'unknown', color: 'gray', of: (b) => b.unknown_count },
  { label: 'cancelled', color: 'gray.4', of: (b) => b.cancelled_count },
  { label: 'opted out', color: 'grape.2', of: (b) => b.opted_out_count },
];

/**
 * A batch's status in words that match its counts. The API's "completed" means only that no text is
 * left to send: all of them may still await their delivery reports, or some may have failed; its
 * "failed" counts texts a person cancelled and texts to numbers that opted out, which are no fault.
 */
export function batchOutcome(batch: Batch): string {
  if (batch.status !== 'completed' && batch.status !== 'failed') return batch.status;
  const failed = realFailures(batch);
  if (failed > 0) return failed === batch.recipient_count ? 'failed' : 'partly failed';
  if (batch.cancelled_count > 0) return 'cancelled';
  if (batch.opted_out_count === batch.recipient_count) return 'opted out';
  if (batch.delivered_count === batch.recipient_count - batch.opted_out_count) return 'delivered';
  if (batch.sent_count > 0) return 'sent';
  return 'completed';
}

/** Whether a finished batch's error names a fault, not a person's cancelling or the numbers' opting out. */
export const batchFaulted = (batch: Batch) => realFailures(batch) > 0;

/** One bar per batch, one section per status; the queued rest stays empty. */
export function BatchProgress({ batch }: { batch: Batch }) {
  const total = Math.max(1, batch.recipient_count);
  const parts = PARTS.map((p) => ({ ...p, n: p.of(batch) })).filter((p) => p.n > 0);
  const summary = parts.map((p) => `${count(p.n)} ${p.label}`).join(', ');
  return (
    <div>
      <Progress.Root size="lg">
        {parts.map((p) => (
          <Progress.Section
            key={p.label}
            value={(p.n / total) * 100}
            color={p.color}
            aria-label={`${count(p.n)} of ${count(batch.recipient_count)} ${p.label}`}
          />
        ))}
      </Progress.Root>
      <Group gap="xs" mt={4}>
        <Text size="xs" c="dimmed" data-testid="batch-summary">
          {summary || 'queued'} · {plural(batch.recipient_count, 'recipient')}
        </Text>
      </Group>
    </div>
  );
}
