import type { EntityManager } from '@mikro-orm/postgresql';
import { paceOf, secondsPerMessage } from './outbox';
import { platformLimitRepository } from './platform-limit.repository';

// Android's own limit (issue #37). Stock Android lets one app send 30 texts in 30 minutes
// (SmsUsageMonitor: sms_outgoing_check_max_count, sms_outgoing_check_interval_ms); the next one
// raises a confirmation dialog on the phone (SMSDispatcher.handleReachSentLimit). While it is up, up
// to five texts wait on it (MO_MSG_QUEUE_LIMIT) and every further one fails at once with
// RESULT_ERROR_LIMIT_EXCEEDED (denyIfQueueLimitReached); Deny fails the waiting ones with the same
// result, and newer versions name a dismissed dialog RESULT_UNEXPECTED_EVENT_STOP_SENDING. The
// SMSGate app reports either as state Failed with the error text "Send result:
// RESULT_ERROR_LIMIT_EXCEEDED (Failed because we reached the sending queue limit)"
// (MessagesService.kt processStateIntent and resultToErrorMessage), which its adapter reads as
// error_code RESULT_ERROR_LIMIT_EXCEEDED.
//
// Such a text was not sent and never will be by that attempt: it is no outcome. The interface lets a
// report never move a message backwards, so it is not made queued again: it stays dispatched (the
// outbox's lease: "handed out again if the phone lost it") and is held, to be handed out again as a
// new attempt (a new send_id for a phone that never sends an id it knows twice) once the phone's
// outbox, paused until its period frees, hands out again. The deadlines of everything waiting on the
// phone move past the pause, so none lapses for it.

/** The results a phone's platform gives a text it refused for its sending limit. */
export const PLATFORM_LIMIT_CODES: ReadonlySet<string> = new Set([
  'RESULT_ERROR_LIMIT_EXCEEDED',
  'RESULT_UNEXPECTED_EVENT_STOP_SENDING',
]);

/** Whether a report says the phone's platform refused the text for its limit. */
export const isPlatformLimit = (report: { status: string; errorCode?: string | null }): boolean =>
  report.status === 'failed' && typeof report.errorCode === 'string' && PLATFORM_LIMIT_CODES.has(report.errorCode);

export interface PlatformLimitDeps {
  staleWindowMs: number;
}

/** Holds back texts the phone's platform refused for its limit, and pauses the phone's outbox. */
export function createPlatformLimit(deps: PlatformLimitDeps) {
  return {
    /**
     * Holds the phone's dispatched (not yet held) messages among `ids`, pauses its outbox for its
     * period (sending_capacity_minutes, the platform's 30 by default) from `now`, and moves the stale
     * deadlines of what waits on it and its batches' estimates past the pause. Returns the held ids.
     */
    async holdBack(tx: EntityManager, deviceId: string, ids: string[], now: Date): Promise<string[]> {
      if (ids.length === 0) return [];
      const held = await platformLimitRepository.holdDispatched(tx, deviceId, ids, now);
      if (held.length === 0) return [];
      const device = await platformLimitRepository.pauseForCapacity(tx, deviceId, now);
      const resume = new Date(device.pausedUntil);
      const per = secondsPerMessage(paceOf(device));
      await platformLimitRepository.moveDeadlinesPast(tx, deviceId, resume, deps.staleWindowMs / 1000, per, now);
      return held.map((row) => row.id);
    },
  };
}

export type PlatformLimit = ReturnType<typeof createPlatformLimit>;
