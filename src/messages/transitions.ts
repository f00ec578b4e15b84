import type { BatchStatus } from './batch.entity';
import type { MessageStatus } from './message.entity';

// Pure rules of the message and batch state machines (design doc, section 6).

export type ReportedStatus = 'sent' | 'delivered' | 'failed';

/** How far along a status is: a report moves a message only forward (reportMoves). */
export const STATUS_RANK: Readonly<Record<MessageStatus, number>> = {
  queued: 0,
  dispatched: 1,
  unknown: 2,
  sent: 3,
  delivered: 4,
  failed: 4,
  received: 4,
};

/** The statuses no report moves a message out of. */
export const FINAL_MESSAGE_STATUSES: ReadonlySet<MessageStatus> = new Set(['delivered', 'failed', 'received']);

/**
 * Whether a phone's report moves a message: never backwards, never out of a final state, and a
 * repeated report is a no-op. A late report after `unknown` still moves it forward.
 */
export function reportMoves(current: MessageStatus, reported: ReportedStatus): boolean {
  if (FINAL_MESSAGE_STATUSES.has(current)) return false;
  if (reported === 'failed') return true;
  return STATUS_RANK[reported] > STATUS_RANK[current];
}

export type BatchCounter = 'dispatched_count' | 'sent_count' | 'delivered_count' | 'failed_count' | 'unknown_count';

/** The one batch counter a message in `status` counts in (none while queued). */
export function counterOf(status: MessageStatus): BatchCounter | null {
  switch (status) {
    case 'dispatched':
      return 'dispatched_count';
    case 'sent':
      return 'sent_count';
    case 'delivered':
      return 'delivered_count';
    case 'failed':
      return 'failed_count';
    case 'unknown':
      return 'unknown_count';
    default:
      return null;
  }
}

/** A batch's status and counters, as the statements that move them return them. */
export interface BatchCounts {
  id: string;
  userId: string;
  deviceId: string;
  status: BatchStatus;
  recipientCount: number;
  dispatchedCount: number;
  sentCount: number;
  deliveredCount: number;
  failedCount: number;
  unknownCount: number;
}

/** Why a message to a recipient on the account's suppression list failed as it was made. */
export const OPTED_OUT = {
  code: 'opted_out',
  message: 'The recipient opted out of texts from this account (STOP); the message was not sent.',
} as const;
