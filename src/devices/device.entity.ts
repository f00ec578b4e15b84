import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { createdAt, id, timestamp, updatedAt } from '../db/base.entity';
import type { SendWindow } from './send-window';

/** One SIM as the phone describes it. */
export interface Sim {
  subscription_id?: number;
  carrier?: string | null;
  slot?: number | null;
  country?: string | null;
  [key: string]: unknown;
}

export const SIM_SELECTIONS = ['os_default', 'round_robin', 'random'] as const;
export type SimSelection = (typeof SIM_SELECTIONS)[number];
export const PROCESSING_ORDERS = ['fifo', 'lifo'] as const;
export type ProcessingOrder = (typeof PROCESSING_ORDERS)[number];

export const Device = defineEntity({
  name: 'Device',
  tableName: 'devices',
  properties: {
    id: id(),
    userId: p.uuid(),
    name: p.string(),
    hardwareKey: p.string(),
    // SHA-256 of the device token; null once unpaired, which revokes the token.
    tokenHash: p.string().nullable().unique(),
    enabled: p.boolean().default(true),
    isDefault: p.boolean().default(false),
    online: p.boolean().default(true),
    receiveEnabled: p.boolean().default(true),
    heartbeatIntervalMinutes: p.integer().default(15),
    sendDelaySeconds: p.integer().default(0),
    // A random extra pause of up to this many seconds the phone adds to send_delay_seconds.
    sendDelayJitterSeconds: p.integer().default(0),
    // The pace the outbox keeps for this phone (null: unlimited), counted over messages handed out.
    maxSendsPerMinute: p.integer().nullable(),
    maxSendsPerHour: p.integer().nullable(),
    maxSendsPerDay: p.integer().nullable(),
    // What the phone's platform lets it send: at most sendingCapacity texts in any trailing
    // sendingCapacityMinutes (stock Android: 30 per 30 minutes for one app; null: no limit known).
    sendingCapacity: p.integer().nullable(),
    sendingCapacityMinutes: p.integer().default(30),
    // The phone reported the platform's limit: its outbox hands out nothing until then.
    pausedUntil: timestamp().nullable(),
    // Days and hours in the phone's time zone when its outbox hands out messages (null: always).
    sendWindow: p.json<SendWindow>().nullable(),
    preferredSimSubscriptionId: p.integer().nullable(),
    // How a message naming no SIM gets one when handed out: none (the phone's default SIM), the next
    // of the phone's SIMs in turn (sim_rotation counts the turns), or any of them at random.
    simSelection: p.string().$type<SimSelection>().default('os_default'),
    simRotation: p.bigint('number').default(0),
    // The outbox hands out oldest first (fifo) or newest first (lifo), high priority first either way.
    processingOrder: p.string().$type<ProcessingOrder>().default('fifo'),
    sentCount: p.integer().default(0),
    receivedCount: p.integer().default(0),
    // Released messages waiting on this phone (queued or dispatched): kept by the statements that
    // enqueue and settle them, so a send reads its place instead of counting the queue.
    queueDepth: p.integer().default(0),
    // Of those, the high-priority ones: a high-priority send's place counts only these.
    queueDepthHigh: p.integer().default(0),
    brand: p.string().nullable(),
    manufacturer: p.string().nullable(),
    model: p.string().nullable(),
    buildId: p.string().nullable(),
    osVersion: p.string().nullable(),
    osApiLevel: p.integer().nullable(),
    appVersionCode: p.integer().nullable(),
    appVersionName: p.string().nullable(),
    pushToken: p.string().nullable(),
    pushTokenInvalidReason: p.string().nullable(),
    pushTokenInvalidatedAt: timestamp().nullable(),
    sims: p.json<Sim[]>().default('[]'),
    telemetry: p.json<Record<string, unknown>>().default('{}'),
    lastHeartbeatAt: timestamp().nullable(),
    // When the API last signalled the liveness workflow (signals are throttled).
    lastSignalAt: timestamp().nullable(),
    pairedAt: timestamp(),
    unpairedAt: timestamp().nullable(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
});
export type Device = InferEntity<typeof Device>;

export const PairingCode = defineEntity({
  name: 'PairingCode',
  tableName: 'pairing_codes',
  properties: {
    id: id(),
    userId: p.uuid(),
    codeHash: p.string(),
    /** SHA-256 of the code's first characters, which name it (pairing.service); null on older codes. */
    selectorHash: p.string().nullable(),
    expiresAt: timestamp(),
    consumedAt: timestamp().nullable(),
    deviceId: p.uuid().nullable(),
    createdAt: createdAt(),
  },
});
export type PairingCode = InferEntity<typeof PairingCode>;

/** Why a pairing attempt with one of an account's codes was refused (pairing.service). */
export const PAIRING_REFUSAL_REASONS = ['wrong', 'used', 'expired', 'rate_limited', 'device_limit'] as const;
export type PairingRefusalReason = (typeof PAIRING_REFUSAL_REASONS)[number];

/** Refused attempts with one code for one reason: counted, never the typed code itself. */
export const PairingRefusal = defineEntity({
  name: 'PairingRefusal',
  tableName: 'pairing_refusals',
  properties: {
    id: id(),
    userId: p.uuid(),
    pairingCodeId: p.uuid(),
    reason: p.string().$type<PairingRefusalReason>(),
    attempts: p.integer(),
    /** The first refused attempt. */
    createdAt: createdAt(),
    lastAttemptAt: timestamp(),
  },
});
export type PairingRefusal = InferEntity<typeof PairingRefusal>;
