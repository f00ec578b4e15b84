import type { EntityManager } from '@mikro-orm/postgresql';
import { queryRaw, sql } from '../db/sql';
import { newId } from '../lib/ids';
import { Message } from './message.entity';
import { messageFromRow } from './messages.repository';
import { countSegments } from './segments';

// Texts a phone received.

export const inboundRepository = {
  /** Stores an inbound text once per phone and fingerprint; null when it was known already. */
  async insertInbound(
    tx: EntityManager,
    input: {
      userId: string;
      deviceId: string;
      body: string;
      dataPort: number | null;
      sender: string;
      simSubscriptionId: number | null;
      fingerprint: string;
      receivedAt: Date;
      now: Date;
    },
  ): Promise<Message | null> {
    const [row] = await queryRaw(
      tx,
      sql`insert into messages (id, user_id, device_id, direction, status, body, data_port, segments, sender, sim_subscription_id,
                                fingerprint, received_at, created_at, updated_at)
          values (${newId()}::uuid, ${input.userId}, ${input.deviceId}, 'inbound', 'received', ${input.body},
                  ${input.dataPort}::int, ${input.dataPort === null ? countSegments(input.body).segments : 1}, ${input.sender}, ${input.simSubscriptionId},
                  ${input.fingerprint}, ${input.receivedAt}, ${input.now}, ${input.now})
          on conflict (device_id, fingerprint) where fingerprint is not null do nothing
          returning *`,
    );
    return row ? messageFromRow(row) : null;
  },

  inboundByFingerprint: (em: EntityManager, deviceId: string, fingerprint: string) =>
    em.findOneOrFail(Message, { deviceId, fingerprint }),
};
