import type { Schemas } from '../api/client';

// A failed text is not always a fault: a person cancelled it, or its number had opted out (STOP).
// Those are quiet states of their own; "failed" is kept for what the phone or carrier could not do.

const WITHDRAWN: Record<string, string> = { cancelled: 'cancelled', opted_out: 'opted out' };

/** A message's state in words: "cancelled" and "opted out" apart from "failed". */
export function messageState(m: Pick<Schemas['Message'], 'status' | 'error_code'>): string {
  return (m.status === 'failed' && m.error_code && WITHDRAWN[m.error_code]) || m.status;
}

/** Whether a message failed for a reason that is nobody's fault (the reason reads as a note, not in red). */
export const withdrawn = (m: Pick<Schemas['Message'], 'status' | 'error_code'>) => messageState(m) !== m.status;

/** A batch's failures that were not cancelled nor to opted-out numbers. */
export const realFailures = (b: Schemas['Batch']) => b.failed_count - b.cancelled_count - b.opted_out_count;

/** A day's failures that were not cancelled nor to opted-out numbers. */
export const dayFailures = (d: Schemas['DailyStats']['days'][number]) => d.failed - d.cancelled - d.opted_out;
