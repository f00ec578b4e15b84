import type { EntityManager } from '@mikro-orm/postgresql';
import type { Sim, SimSelection } from '../devices/device.entity';
import { devicesRepository } from '../devices/devices.repository';
import type { Moved } from './messages.repository';
import { outboxRepository } from './outbox.repository';

// A phone's SIM selection (devices.sim_selection), as the SMSGate app applies its own
// (MessagesService.kt selectSimNumber): a message that names a SIM keeps it; one that names none goes
// out on the phone's default SIM (os_default), on its SIMs in turn (round_robin: the SIMs it reported,
// in number order, one turn per message, the turns counted in the database so they follow each other
// across fetches and processes), or on any of them (random). The SIM is chosen when the message is
// handed out for a send and recorded on it, so the message shows it and the phone is told it.

/** The SIMs a phone reported, by subscription id, in order, each once. */
export const simsOf = (sims: Sim[]): number[] =>
  [...new Set(sims.map((sim) => sim.subscription_id).filter((id): id is number => typeof id === 'number'))].sort(
    (a, b) => a - b,
  );

/**
 * Gives each message handed out for a send (`forSend`) without a SIM one by the phone's selection,
 * in the order of `moves` (the outbox's), and records it on the row and on the moved message.
 */
export async function chooseSims(
  tx: EntityManager,
  deviceId: string,
  selection: SimSelection,
  moves: Moved[],
  forSend: Set<string>,
  random: () => number = Math.random,
): Promise<void> {
  if (selection === 'os_default') return;
  const open = moves.filter((move) => forSend.has(move.message.id) && move.message.simSubscriptionId == null);
  if (open.length === 0) return;
  const chosen: { id: string; sim: number }[] = [];
  if (selection === 'round_robin') {
    const turns = await devicesRepository.takeSimTurns(tx, deviceId, open.length);
    const sims = simsOf(turns.sims);
    if (sims.length === 0) return;
    open.forEach((move, n) => chosen.push({ id: move.message.id, sim: sims[(turns.first + n) % sims.length] }));
  } else {
    const sims = simsOf(await devicesRepository.simsOf(tx, deviceId));
    if (sims.length === 0) return;
    for (const move of open) chosen.push({ id: move.message.id, sim: sims[Math.floor(random() * sims.length)] });
  }
  await outboxRepository.recordSims(tx, chosen);
  const byId = new Map(chosen.map((c) => [c.id, c.sim]));
  for (const move of open) move.message.simSubscriptionId = byId.get(move.message.id) ?? null;
}
