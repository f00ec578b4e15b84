// The one-statement fetch: the fast path of a phone's outbox fetch (GET /v1/device/outbox, and the
// SMSGate app's). Its slow path, which it must equal, is the fetch in one transaction
// (`outbox()` in ./phone-messages.service.ts: the phone's pacing, its allowance, the hand-out, the SIMs,
// the batches' counts and statuses). For a phone with nothing to decide between those statements (no
// pace, send window, platform pause or SIM choice, and handed out oldest first unless the fetch names
// an order), both hand out the same messages and leave the same messages and batches; for any other
// phone the statement writes nothing and the transaction decides.
//
// Why it exists: one round trip where the transaction takes six, each costing the api and Postgres
// a write and a wake-up on the socket (docs/performance.md, "A common fetch is one statement").
// test/messages/plain-outbox.test.ts runs both on the same fetches.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ProcessingOrder } from '../devices/device.entity';
import { devicesRepository } from '../devices/devices.repository';
import { batchesRepository } from './batches.repository';
import type { Message } from './message.entity';
import { outboxRepository } from './outbox.repository';

/**
 * The fetch of a plain phone in one statement; null when the phone is not one (nothing written) or
 * the fetch runs inside a transaction, whose statements would not commit with it: the transaction decides.
 */
export async function plainOutbox(
  em: EntityManager,
  now: Date,
  deviceId: string,
  limit: number,
  order?: ProcessingOrder,
): Promise<Message[] | null> {
  if (em.isInTransaction()) return null;
  const { fits, moves } = await outboxRepository.takePlainOutbox(
    em,
    deviceId,
    now,
    limit,
    order ?? 'fifo',
    devicesRepository.plainOutbox(deviceId, now, order !== undefined),
    (moved) => batchesRepository.dispatchedFrom(moved, now),
  );
  return fits ? moves.map((m) => m.message) : null;
}
