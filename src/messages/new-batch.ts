import { newId } from '../lib/ids';
import type { SendingDevice } from '../devices/devices.repository';
import type { Batch } from './batch.entity';
import type { SendBody } from './messages.schemas';
import { countSegments } from './segments';
import { encryptedPreview } from './encrypted';
import { segmentsOfTexts } from './personalised';

// A send's batch row as it is accepted, the same for both ways of writing it (./one-statement-send.ts,
// ./transaction-send.ts).

/** A send's texts per recipient, when they differ: with their segments. */
export interface Personal {
  texts: string[];
  segments: number[];
}

/**
 * An unknown SIM falls back to the phone's preferred one (when the phone reported its SIMs). On a
 * phone that rotates its SIMs (sim_selection) a send naming none has none yet: each message gets
 * one when it is handed out (./sim-selection.ts).
 */
function simFor(device: SendingDevice, requested?: number | null): number | null {
  const fallback = device.simSelection === 'os_default' ? device.preferredSimSubscriptionId : null;
  if (requested === undefined || requested === null) return fallback;
  const known = (device.sims ?? []).map((sim) => sim.subscription_id);
  return known.length === 0 || known.includes(requested) ? requested : fallback;
}

const preview = (numbers: string[]) =>
  numbers.slice(0, 3).join(', ') + (numbers.length > 3 ? ` and ${numbers.length - 3} more` : '');

/** How a data SMS counts: one segment per recipient, sent as bytes. */
const DATA_SEGMENTS = { segments: 1, encoding: 'binary' } as const;

/** A send's batch as it is accepted now, `optedOutCount` of its recipients on the suppression list. */
export function newBatch(
  now: Date,
  userId: string,
  input: SendBody,
  device: SendingDevice,
  numbers: string[],
  optedOutCount: number,
  personal: Personal | null = null,
  retryOf: string | null = null,
) {
  // Ciphertext says nothing of the text's length or alphabet: one segment each, encoding unknown. A
  // data SMS is one SMS, its bytes as given (the SMSGate app counts it one part too). Texts of
  // their own count as the longest of them.
  const { segments, encoding } = input.encrypted
    ? { segments: 1, encoding: 'unknown' }
    : input.data
      ? DATA_SEGMENTS
      : personal
        ? segmentsOfTexts(personal.texts).batch
        : countSegments(input.body ?? '');
  const scheduledAt = input.scheduled_at ?? null;
  const batch = {
    id: newId(),
    userId,
    deviceId: device.id,
    body: input.data?.base64 ?? input.body ?? '',
    dataPort: input.data?.port ?? null,
    encrypted: input.encrypted,
    status: scheduledAt ? 'scheduled' : 'queued',
    recipientCount: numbers.length,
    recipientPreview: input.encrypted ? encryptedPreview(numbers.length) : preview(numbers),
    segments,
    encoding,
    simSubscriptionId: simFor(device, input.sim_subscription_id),
    priority: input.priority ?? 'normal',
    ttlSeconds: input.ttl_seconds ?? null,
    dispatchedCount: 0,
    sentCount: 0,
    deliveredCount: 0,
    failedCount: optedOutCount,
    unknownCount: 0,
    scheduledAt,
    estimatedCompletionAt: null as Date | null,
    completedAt: null,
    error: null,
    cancelledAt: null,
    workflowStartedAt: null,
    retryOf,
    createdAt: now,
    updatedAt: now,
  } satisfies Batch as Batch;
  // Every recipient opted out: the send is final as it is made. Otherwise it is queued (or scheduled):
  // nothing is dispatched yet.
  if (optedOutCount === numbers.length)
    Object.assign(batch, { status: 'failed', completedAt: now, error: 'Every recipient has opted out.' });
  return batch;
}
