import { LockMode, type EntityManager, type RequiredEntityData } from '@mikro-orm/postgresql';
import { readRows } from '../db/read';
import { Device } from './device.entity';

// A phone's row as an entity: the reads and writes of its settings, heartbeats and pairing, where
// the services change the loaded phone and `writeChanges` writes it. The statements that move many
// phones at once (presence, queue counters, the channel's state) are devicesRepository's.

export const deviceRowsRepository = {
  /** The account's paired phones as plain rows, the default one first, then newest. */
  listPaired: (em: EntityManager, userId: string) =>
    readRows(
      em,
      Device,
      { userId, unpairedAt: null },
      { orderBy: { isDefault: 'desc', createdAt: 'desc', id: 'desc' } },
    ),

  /** The account's paired phone, or null. */
  paired: (em: EntityManager, userId: string, id: string) => em.findOne(Device, { id, userId, unpairedAt: null }),

  /** The paired phone of any account (a pairing code's), or null. */
  pairedById: (em: EntityManager, id: string) => em.findOne(Device, { id, unpairedAt: null }),

  /** The account's paired phone, read fresh and locked until the transaction ends; null when there is none. */
  lockPaired: (tx: EntityManager, userId: string, id: string) =>
    tx.findOne(Device, { id, userId, unpairedAt: null }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true }),

  /** The phone as it is now (not as this EntityManager last saw it), whatever its state; or null. */
  fresh: (tx: EntityManager, id: string) => tx.findOne(Device, { id }, { refresh: true }),

  /** The phone as it is now; fails (NotFoundError) when there is none. */
  freshOrFail: (tx: EntityManager, id: string) => tx.findOneOrFail(Device, { id }, { refresh: true }),

  /** The account's paired phone with this hardware key, or null. */
  pairedByHardwareKey: (tx: EntityManager, userId: string, hardwareKey: string) =>
    tx.findOne(Device, { userId, hardwareKey, unpairedAt: null }),

  /** The account's most recently unpaired phone with this hardware key, or null. */
  lastUnpairedByHardwareKey: (tx: EntityManager, userId: string, hardwareKey: string) =>
    tx.findOne(Device, { userId, hardwareKey, unpairedAt: { $ne: null } }, { orderBy: { unpairedAt: 'desc' } }),

  countPaired: (tx: EntityManager, userId: string) => tx.count(Device, { userId, unpairedAt: null }),

  countPairedDefaults: (tx: EntityManager, userId: string) =>
    tx.count(Device, { userId, isDefault: true, unpairedAt: null }),

  /** A new phone, written with the next `writeChanges` on the same EntityManager. */
  add: (tx: EntityManager, data: RequiredEntityData<Device>): Device => tx.create(Device, data),

  /** Writes what the caller changed on the phones it loaded or added with this EntityManager. */
  async writeChanges(em: EntityManager): Promise<void> {
    await em.flush();
  },
};
