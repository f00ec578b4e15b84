import type { EntityManager } from '@mikro-orm/postgresql';
import { query, sql, toDate, type Sql } from '../db/sql';
import type { Batch, Priority } from './batch.entity';
import { secondsPerMessage, type Deadlines, type PlacementInput } from './outbox';
import { OPTED_OUT } from './transitions';

// Writing a send: its batch and every message, in one statement.

export interface NewSend {
  batch: Batch;
  messageIds: string[];
  recipients: string[];
  /** Per recipient, whether it is on the suppression list: its message is created failed, `opted_out`. */
  optedOut?: boolean[];
  /** The sendable messages' stale deadlines, null while scheduled (they get theirs when released). */
  deadlines: Deadlines | null;
  /** Per recipient, its own text and segments (a personalised send); else every message has the batch's. */
  texts?: { texts: string[]; segments: number[] };
}

/** A send placed by the statement that writes it: its first stale deadline is SQL there. */
export type PlacedSend = Omit<NewSend, 'deadlines'> & { deadlines: Omit<Deadlines, 'firstStaleAt'> };

/** The sort key of a priority in messages.priority (the outbox orders by it, descending). */
export const PRIORITY_RANK: Record<Priority, number> = { normal: 0, high: 1 };

/**
 * The n-th (from 1) message's stale deadline from Deadlines: the uneven one (epoch ms) when there is
 * one, else the even stagger from the first deadline, never past the ttl (least() ignores a null ttl).
 */
export const staleAtOf = (
  n: Sql,
  uneven: Sql,
  first: Sql,
  deadlines: Pick<Deadlines, 'ttlAt' | 'perMessageSeconds'> | null,
) =>
  sql`least(${deadlines?.ttlAt ?? null}::timestamptz,
            coalesce(to_timestamp(${uneven}::float8 / 1000),
                     ${first} + make_interval(secs => (${n} - 1) * ${deadlines?.perMessageSeconds ?? 0}::float8)))`;

/** The uneven deadlines (epoch ms), one per sendable message; empty when they are even. */
export const unevenOf = (d: Pick<Deadlines, 'staleAts'> | null): number[] =>
  d?.staleAts ? d.staleAts.map((at) => at.getTime()) : [];

const BATCH_COLUMNS = sql`id, user_id, device_id, body, encrypted, data_port, status, recipient_count, recipient_preview, segments, encoding,
  sim_subscription_id, priority, ttl_seconds, failed_count, scheduled_at, estimated_completion_at, completed_at, error,
  retry_of, created_at, updated_at`;
const batchValues = (batch: Batch, estimate: Sql) =>
  sql`${batch.id}::uuid, ${batch.userId}::uuid, ${batch.deviceId}::uuid, ${batch.body}::text, ${batch.encrypted}::boolean, ${batch.dataPort ?? null}::int, ${batch.status}::text,
      ${batch.recipientCount}::int, ${batch.recipientPreview}::text, ${batch.segments}::int, ${batch.encoding}::text,
      ${batch.simSubscriptionId}::int, ${batch.priority}::text, ${batch.ttlSeconds}::int, ${batch.failedCount}::int,
      ${batch.scheduledAt}::timestamptz, ${estimate}, ${batch.completedAt}::timestamptz, ${batch.error}::text,
      ${batch.retryOf ?? null}::uuid, ${batch.createdAt}::timestamptz, ${batch.updatedAt}::timestamptz`;

/**
 * The INSERT of a send's messages (one row per recipient, each with its place and deadline), reading
 * `from` beside the recipients; `first` is the first stale deadline.
 */
function messagesInsert(send: NewSend | PlacedSend, first: Sql, from: Sql = sql.empty): Sql {
  const { batch } = send;
  // Per recipient: its place among the sendable ones, or -1 when it opted out (none: places in order).
  let slot = 0;
  const places = send.optedOut ? send.optedOut.map((out) => (out ? -1 : slot++)) : [];
  // Uneven deadlines (a send window) are per sendable message: spread over the recipients by place.
  const staleAts = send.deadlines?.staleAts;
  const uneven = !staleAts
    ? []
    : send.optedOut
      ? places.map((place) => (place < 0 ? null : staleAts[place].getTime()))
      : unevenOf(send.deadlines);
  const staleAt = staleAtOf(sql`(coalesce(r.slot, r.n - 1) + 1)`, sql`r.at`, first, send.deadlines);
  return sql`insert into messages (id, user_id, batch_id, device_id, direction, status, body, body_from_batch, encrypted, data_port, recipient, sim_subscription_id,
                             segments, position, priority, available_at, stale_at, failed_at, error_code,
                             error_message, created_at, updated_at)
       select r.id, ${batch.userId}::uuid, ${batch.id}::uuid, ${batch.deviceId}::uuid, 'outbound',
              case when r.out then 'failed' else 'queued' end, coalesce(r.text, ${batch.body}::text), r.text is null, ${batch.encrypted}::boolean, ${batch.dataPort ?? null}::int, r.recipient,
              ${batch.simSubscriptionId}::int, coalesce(r.segments, ${batch.segments}::int),
              (r.n - 1)::int, ${PRIORITY_RANK[batch.priority as Priority]}::int,
              case when r.out then null else ${batch.scheduledAt ? null : batch.createdAt}::timestamptz end,
              case when r.out then null else ${staleAt} end,
              case when r.out then ${batch.createdAt}::timestamptz end,
              case when r.out then ${OPTED_OUT.code}::text end,
              case when r.out then ${OPTED_OUT.message}::text end,
              ${batch.createdAt}::timestamptz, ${batch.updatedAt}::timestamptz
         from (select u.*, coalesce(u.slot = -1, false) as out
                 from unnest(${send.messageIds}::uuid[], ${send.recipients}::text[], ${places}::int[],
                             ${uneven}::float8[], ${send.texts?.texts ?? []}::text[], ${send.texts?.segments ?? []}::int[])
                      with ordinality as u (id, recipient, slot, at, text, segments, n)) r${from}`;
}

/** What `acceptSend` needs beyond the send: the steps of other features, as SQL. */
export interface AcceptSteps {
  /** Locks the phone (one row with its id) when the send may go to it as placed; named `d`. */
  lockDevice: Sql;
  /** The plan's admission, one row when admitted, given a condition it needs; named `a`. */
  admit: (guard: Sql) => Sql;
  /** The phone of `locked` takes the send's places once `when` holds; returns `ahead`. Named `q`. */
  takePlaces: (locked: Sql, when: Sql) => Sql;
  /** The first stale deadline and the estimate as SQL of `q.ahead`. */
  firstStaleAt: Sql;
  estimate: Sql;
}

export const sendsRepository = {
  /**
   * A send: the batch and every message with its final place and deadline, in one statement. An
   * opted-out recipient's message is created failed (`opted_out`) and takes no place: the others'
   * deadlines follow one another as if it were not there.
   */
  async insertSend(tx: EntityManager, send: NewSend): Promise<void> {
    const batch = batchValues(send.batch, sql`${send.batch.estimatedCompletionAt}::timestamptz`);
    const messages = messagesInsert(send, sql`${send.deadlines?.firstStaleAt ?? null}::timestamptz`);
    await query(tx, sql`with b as (insert into batches (${BATCH_COLUMNS}) values (${batch})) ${messages}`);
  },

  /**
   * A send in one statement, outside any transaction: the phone locked while it is as the send was
   * placed by, the plan's admission, the phone's outbox places, the batch and its messages. Each step
   * needs the one before: when the phone is not as expected or the plan refuses, nothing is
   * written. Returns what happened: `device` false (write nothing; the caller takes the long way),
   * `admitted` false (refused), else the batch's estimated completion.
   */
  async acceptSend(
    em: EntityManager,
    send: PlacedSend,
    steps: AcceptSteps,
  ): Promise<{ device: boolean; admitted: boolean; estimatedCompletionAt: Date | null }> {
    const admit = steps.admit(sql`exists (select 1 from d)`);
    const places = steps.takePlaces(sql`d`, sql`exists (select 1 from a)`);
    const batch = batchValues(send.batch, steps.estimate);
    const messages = messagesInsert(send, steps.firstStaleAt, sql` cross join q`);
    const [row] = await query<{ device: boolean; admitted: boolean; estimatedCompletionAt: unknown }>(
      em,
      sql`with d as (${steps.lockDevice}), a as (${admit}), q as (${places}),
            b as (insert into batches (${BATCH_COLUMNS}) select ${batch} from q returning estimated_completion_at),
            m as (${messages})
       select exists (select 1 from d) as device, exists (select 1 from a) as admitted,
              (select estimated_completion_at from b) as estimated_completion_at`,
      // Planning this statement costs Postgres more than running it for a few recipients.
      { prepared: true },
    );
    return { device: row.device, admitted: row.admitted, estimatedCompletionAt: toDate(row.estimatedCompletionAt) };
  },
};

/**
 * placement() (./outbox.ts) for a send that takes its places in the same statement that writes it, on a phone
 * without a send window: the first stale deadline and the estimate as SQL of `ahead` (an SQL
 * expression), by the same float arithmetic as placement(), so the same instants to the millisecond
 * (test/messages/outbox-sql.test.ts compares the two).
 */
export function placementSql(input: Omit<PlacementInput, 'ahead'>, ahead: Sql) {
  if (input.pace.window) throw new Error('a phone with a send window is placed by placement()');
  if (input.resumeAt && input.resumeAt > input.sendableAt) throw new Error('a paused phone is placed by placement()');
  const perMessageSeconds = secondsPerMessage(input.pace);
  const start = input.sendableAt.getTime();
  return {
    perMessageSeconds,
    ttlAt: input.ttlSeconds != null ? new Date(start + input.ttlSeconds * 1000) : null,
    // new Date(start + staleWindowMs + ahead × perMessageSeconds × 1000): a Date truncates to the ms.
    firstStaleAt: sql`to_timestamp(trunc(${start + input.staleWindowMs}::float8 + (${ahead})::float8 * ${perMessageSeconds}::float8 * 1000) / 1000)`,
    // new Date(start + Math.round((ahead + count) × perMessageSeconds × 1000)).
    estimate: sql`to_timestamp((${start}::float8 + floor(((${ahead}) + ${input.count}::int)::float8 * ${perMessageSeconds}::float8 * 1000 + 0.5)) / 1000)`,
  };
}

/** placementSql() of the messages acceptSend writes: its statement's queue says how many are ahead (`q.ahead`). */
export const placementInSend = (input: Omit<PlacementInput, 'ahead'>) => placementSql(input, sql`q.ahead`);
