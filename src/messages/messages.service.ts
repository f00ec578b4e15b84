import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import type { AccountsService } from '../accounts/accounts.service';
import { conflict, notFound, validationFailed } from '../http/errors';
import { afterCursorSql, decodeCursor, findPage, toPage, type Page } from '../http/pagination';
import type { Clock } from '../lib/clock';
import type { Logger } from '../lib/logger';
import type { PlansService } from '../plans/plans.service';
import { batchWorkflowId, type BatchInput } from '../../workflows/definitions';
import { idempotentStart } from '../../temporal/client';
import type { Sweep } from '../reconciler/reconciler.service';
import { Batch } from './batch.entity';
import { Message } from './message.entity';
import type { ListMessagesQuery, SendBody } from './messages.schemas';
import { normalizeRecipients } from './recipients';
import { countSegments } from './segments';
import { scheduleOnDevice } from './queue';

export interface MessagesDeps {
  em: () => EntityManager;
  clock: Clock;
  logger: Logger;
  temporal: Client;
  taskQueue: string;
  plans: PlansService;
  accounts: AccountsService;
  staleWindowMs: number;
  defaultCountry?: string;
}

interface SendingDevice {
  id: string;
  send_delay_seconds: number;
  preferred_sim_subscription_id: number | null;
  sims: Array<{ subscription_id?: number }> | null;
}

const noDevice = (why: string) => conflict('no_device', why);
const INSERT_CHUNK = 1000;

export function createMessagesService(deps: MessagesDeps) {
  const { em, clock } = deps;

  /** device_id when given, else the default device, else the most recently online one; enabled and paired only. */
  async function resolveDevice(userId: string, deviceId?: string | null): Promise<SendingDevice> {
    const base = `select id, send_delay_seconds, preferred_sim_subscription_id, sims from devices
                   where user_id = ? and unpaired_at is null and enabled`;
    if (deviceId) {
      const [device] = await em().execute<SendingDevice[]>(`${base} and id = ?`, [userId, deviceId]);
      if (!device) throw noDevice('That device does not exist, is not paired or is disabled.');
      return device;
    }
    const [device] = await em().execute<SendingDevice[]>(
      `${base} order by is_default desc, online desc, last_heartbeat_at desc nulls last, created_at desc limit 1`,
      [userId],
    );
    if (!device) throw noDevice('No paired and enabled phone can take this send.');
    return device;
  }

  /** An unknown SIM falls back to the phone's preferred one (when the phone reported its SIMs). */
  function simFor(device: SendingDevice, requested?: number | null): number | null {
    if (requested === undefined || requested === null) return device.preferred_sim_subscription_id;
    const known = (device.sims ?? []).map((sim) => sim.subscription_id);
    return known.length === 0 || known.includes(requested) ? requested : device.preferred_sim_subscription_id;
  }

  /** Starts a batch's workflow (a repeat is a no-op) and records that it runs. */
  async function start(on: EntityManager, batch: { id: string; scheduledAt?: Date | null }): Promise<void> {
    const input: BatchInput = { batchId: batch.id, scheduledAt: batch.scheduledAt?.toISOString() ?? null };
    await deps.temporal.workflow.start('batchWorkflow', {
      workflowId: batchWorkflowId(batch.id),
      taskQueue: deps.taskQueue,
      args: [input],
      ...idempotentStart,
    });
    await on.execute('update batches set workflow_started_at = ? where id = ? and workflow_started_at is null', [
      clock.now(),
      batch.id,
    ]);
  }

  async function startWorkflow(batch: Batch): Promise<void> {
    try {
      // A send must not hang on an unreachable Temporal: the reconciler starts it later.
      await deps.temporal.withDeadline(Date.now() + 5000, () => start(em(), batch));
    } catch (error) {
      // Accepted is accepted: the reconciler starts the workflow of any batch left without one.
      deps.logger.warn({ err: error, batch_id: batch.id }, 'batch workflow not started; the reconciler will');
    }
  }

  return {
    resolveDevice,
    startWorkflow,

    /** The reconciler's sweep: batches accepted but left without a workflow (a crash after the commit). */
    sweep(graceMs = 60_000): Sweep {
      return {
        name: 'batches',
        run: async (on) => {
          const rows = await on.execute<{ id: string; scheduled_at: Date | null }[]>(
            `select id, scheduled_at from batches where workflow_started_at is null and created_at < ?
              order by created_at limit 100`,
            [new Date(clock.now().getTime() - graceMs)],
          );
          for (const row of rows)
            await start(on, { id: row.id, scheduledAt: row.scheduled_at ? new Date(row.scheduled_at) : null });
          return rows.length;
        },
      };
    },

    /** POST /v1/messages: the batch and all its messages in one transaction, then its workflow. */
    async send(userId: string, input: SendBody): Promise<{ batch: Batch; messageIds: string[] }> {
      const { numbers, errors } = normalizeRecipients(input.to, deps.defaultCountry);
      if (errors.length > 0) throw validationFailed(errors);
      await deps.accounts.assertCanSend(userId);
      const device = await resolveDevice(userId, input.device_id);
      const sim = simFor(device, input.sim_subscription_id);
      const { segments, encoding } = countSegments(input.body);
      const now = clock.now();
      const scheduledAt = input.scheduled_at ?? null;
      const messageIds = numbers.map(() => randomUUID());

      const batch = await em().transactional(async (tx) => {
        await deps.plans.admitSends(tx, userId, numbers.length);
        const batch = tx.create(Batch, {
          userId,
          deviceId: device.id,
          body: input.body,
          status: scheduledAt ? 'scheduled' : 'queued',
          recipientCount: numbers.length,
          recipientPreview:
            numbers.slice(0, 3).join(', ') + (numbers.length > 3 ? ` and ${numbers.length - 3} more` : ''),
          segments,
          encoding,
          simSubscriptionId: sim,
          scheduledAt,
          createdAt: now,
          updatedAt: now,
        });
        await tx.flush();
        const rows = numbers.map((recipient, position) => ({
          id: messageIds[position],
          userId,
          batchId: batch.id,
          deviceId: device.id,
          direction: 'outbound' as const,
          status: 'queued' as const,
          body: input.body,
          recipient,
          simSubscriptionId: sim,
          segments,
          position,
          availableAt: scheduledAt ?? now,
          createdAt: now,
          updatedAt: now,
        }));
        for (let i = 0; i < rows.length; i += INSERT_CHUNK)
          await tx.insertMany(Message, rows.slice(i, i + INSERT_CHUNK));
        if (!scheduledAt) {
          batch.estimatedCompletionAt = await scheduleOnDevice(tx, {
            batchId: batch.id,
            deviceId: device.id,
            sendableAt: now,
            sendDelaySeconds: device.send_delay_seconds,
            staleWindowMs: deps.staleWindowMs,
          });
          await tx.flush();
        }
        return batch;
      });
      await startWorkflow(batch);
      return { batch, messageIds };
    },

    /** GET /v1/batches: newest first, with their per-status counts. */
    listBatches: (userId: string, query: { cursor?: string; limit: number }) =>
      findPage(em(), Batch, { userId }, { cursor: query.cursor, limit: query.limit, order: 'desc' }),

    async getBatch(userId: string, id: string): Promise<{ batch: Batch; messages: Message[] }> {
      const batch = await em().findOne(Batch, { id, userId });
      if (!batch) throw notFound('batch');
      const messages = await em().find(Message, { batchId: id, userId }, { orderBy: { position: 'asc' } });
      return { batch, messages };
    },

    async getMessage(userId: string, id: string): Promise<Message> {
      const message = await em().findOne(Message, { id, userId });
      if (!message) throw notFound('message');
      return message;
    },

    /** GET /v1/messages: every filter of the interface, keyset-paginated over (created_at, id). */
    async list(userId: string, query: ListMessagesQuery): Promise<Page<Message>> {
      const where: string[] = ['m.user_id = ?'];
      const params: unknown[] = [userId];
      if (query.device_ids) {
        const ids = query.device_ids.split(',').map((id) => id.trim());
        where.push(`m.device_id in (${ids.map(() => '?').join(', ')})`);
        params.push(...ids);
      }
      if (query.direction) (where.push('m.direction = ?'), params.push(query.direction));
      if (query.status) (where.push('m.status = ?'), params.push(query.status));
      if (query.batch_id) (where.push('m.batch_id = ?'), params.push(query.batch_id));
      if (query.from) (where.push('m.created_at >= ?'), params.push(query.from));
      if (query.to) (where.push('m.created_at < ?'), params.push(query.to));
      if (query.q) {
        // The same expression as the trigram index, so the index serves it.
        where.push(`(m.body || ' ' || coalesce(m.recipient, '') || ' ' || coalesce(m.sender, '')) ilike ?`);
        params.push(`%${query.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
      }
      const order = query.order === 'asc' ? 'asc' : 'desc';
      const cursor = query.cursor ? decodeCursor(query.cursor) : null;
      if (cursor) {
        const after = afterCursorSql(cursor, order, { createdAt: 'm.created_at', id: 'm.id' });
        where.push(after.sql);
        params.push(...after.params);
      }
      const rows = await em().execute(
        `select m.* from messages m where ${where.join(' and ')}
          order by m.created_at ${order}, m.id ${order} limit ?`,
        [...params, query.limit + 1],
      );
      const messages = rows.map((row) => em().map(Message, row));
      return toPage(messages, query.limit);
    },

    /** GET /v1/stats: paired phones, and texts received and sent (reached the carrier) over all phones, ever. */
    async stats(userId: string): Promise<{ devices: number; received: number; sent: number }> {
      const [row] = await em().execute<{ devices: number; received: number; sent: number }[]>(
        `select count(*) filter (where unpaired_at is null)::int as devices,
                coalesce(sum(received_count), 0)::int as received,
                coalesce(sum(sent_count), 0)::int as sent
           from devices where user_id = ?`,
        [userId],
      );
      return row;
    },
  };
}

export type MessagesService = ReturnType<typeof createMessagesService>;
