import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiError, notFound } from '../http/errors';
import type { Clock } from '../lib/clock';
import { UUID } from '../lib/fields';
import type { Logger } from '../lib/logger';
import type { Metrics } from '../metrics/metrics';
import type { Sweep } from '../reconciler/reconciler.service';
import { mmsRepository, type NewAttachment } from './mms.repository';
import { mmsView } from './mms.views';

/** A received MMS's parts as a phone forwards them (the SMSGate app's mms:downloaded), bytes in base64. */
export interface IncomingMms {
  subject: string | null;
  attachments: { partId: number; contentType: string; name: string | null; size: number | null; data: string | null }[];
}

export interface MmsDeps {
  em: () => EntityManager;
  clock: Clock;
  logger: Logger;
  metrics: Metrics['phone'];
  /** Bytes of attachments each account keeps (MMS_ATTACHMENT_QUOTA_BYTES). */
  quotaBytes: number;
  /** How long their bytes are kept (MMS_ATTACHMENT_RETENTION). */
  retentionMs: number;
}

const SWEEP_LIMIT = 500;

/**
 * Received MMS: an inbound message's subject and attachments. A phone forwards an MMS once, so it is
 * never refused for its attachments: past the account's quota they are listed, their bytes not kept,
 * and that is counted and logged.
 */
export function createMmsService(deps: MmsDeps) {
  const { em, clock } = deps;

  return {
    /** In the inbound message's transaction: the MMS's rows; returns what its message resource adds. */
    async store(tx: EntityManager, message: { id: string; userId: string; deviceId: string }, mms: IncomingMms) {
      let room = deps.quotaBytes - (await mmsRepository.storedBytes(tx, message.userId));
      const attachments: NewAttachment[] = mms.attachments.map((part) => {
        const data = part.data ? Buffer.from(part.data, 'base64') : null;
        const base = { partId: part.partId, contentType: part.contentType, name: part.name };
        if (!data || data.length === 0) return { ...base, size: part.size ?? 0, data: null, notStored: 'no_data' };
        if (data.length > room) return { ...base, size: data.length, data: null, notStored: 'over_quota' };
        room -= data.length;
        return { ...base, size: data.length, data, notStored: null };
      });
      const rows = await mmsRepository.insert(tx, {
        messageId: message.id,
        userId: message.userId,
        subject: mms.subject,
        attachments,
        now: clock.now(),
      });
      for (const row of rows) deps.metrics.mmsAttachments.inc({ result: row.notStored ?? 'stored' });
      const dropped = rows.filter((row) => row.notStored !== null);
      if (dropped.length > 0) {
        deps.logger.warn(
          {
            deviceId: message.deviceId,
            messageId: message.id,
            attachments: dropped.map((row) => ({ partId: row.partId, size: row.size, reason: row.notStored })),
            quotaBytes: deps.quotaBytes,
          },
          'mms: attachments of a received MMS listed but not stored',
        );
      }
      return mmsView({ subject: mms.subject, attachments: rows });
    },

    /** What each MMS among these messages of the account adds to its resource. */
    async viewsOf(userId: string, messageIds: string[]) {
      const found = await mmsRepository.ofMessages(em(), userId, messageIds);
      return new Map([...found].map(([id, mms]) => [id, mmsView(mms)]));
    },

    /** The account's MMS among these messages, with their attachment rows (the drop-in inbox). */
    rowsOf: (userId: string, messageIds: string[]) => mmsRepository.ofMessages(em(), userId, messageIds),

    /**
     * One attachment of the account's message, with its bytes: another account's, or none, is 404;
     * one whose bytes were not kept (quota, retention) is 410.
     */
    async content(userId: string, messageId: string, by: { id: string } | { partId: number }) {
      if (!UUID.test(messageId) || ('id' in by && !UUID.test(by.id))) throw notFound('attachment');
      const row = await mmsRepository.content(em(), userId, messageId, by);
      if (!row) throw notFound('attachment');
      if (!row.data) throw new ApiError(410, 'not_stored', `The attachment's content was not kept (${row.notStored}).`);
      return { ...row, data: row.data };
    },

    /** The reconciler's housekeeping: the bytes of attachments past the retention are dropped. */
    sweep(): Sweep {
      return {
        name: 'expired-mms-attachments',
        routine: true,
        run: () => mmsRepository.expire(em().fork(), new Date(clock.now().getTime() - deps.retentionMs), SWEEP_LIMIT),
      };
    },
  };
}

export type MmsService = ReturnType<typeof createMmsService>;
