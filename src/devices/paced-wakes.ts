import type { MikroORM } from '@mikro-orm/postgresql';
import type { Clock } from '../lib/clock';
import type { Logger } from '../lib/logger';
import { devicesRepository } from './devices.repository';
import { isOpen } from './send-window';
import type { OutboxProbes } from './phone-channel';

export interface PacedWakesOptions {
  orm: MikroORM;
  outbox: Pick<OutboxProbes, 'newestDue' | 'pacedOut'>;
  clock: Clock;
  logger: Logger;
  /** Tells the phone to fetch its outbox now (push; never fails its caller). */
  wake: (deviceId: string) => void;
  /** How often the phones waiting for their pace are looked at, all of them in one look. */
  pollMs?: number;
}

/**
 * The push side of what the live channel does for a paced phone (phone-channel.ts, `freed`): a phone
 * whose max_sends_per_minute/hour ran out at a fetch is looked at until its pace frees, and then, if
 * work still waits and its send window is open, woken by push. A pace frees with time, not with a
 * change anything announces, so it is looked for; a phone with nothing left waiting is let go.
 */
export function createPacedWakes({ orm, outbox, clock, logger, wake, pollMs = 2_000 }: PacedWakesOptions) {
  const waiting = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let looking = false;

  function stop() {
    clearInterval(timer);
    timer = undefined;
  }

  async function look(): Promise<void> {
    const deviceIds = [...waiting];
    const now = clock.now();
    const [states, due, pacedOut] = await Promise.all([
      devicesRepository.channelStates(orm.em.fork(), deviceIds),
      outbox.newestDue(orm.em.fork(), deviceIds, now),
      outbox.pacedOut(orm.em.fork(), deviceIds, now),
    ]);
    const byId = new Map(states.map((state) => [state.id, state]));
    for (const deviceId of deviceIds) {
      const state = byId.get(deviceId);
      if (!state?.live || !due.has(deviceId)) {
        waiting.delete(deviceId);
      } else if (!pacedOut.has(deviceId) && isOpen(state.sendWindow, now)) {
        waiting.delete(deviceId);
        wake(deviceId);
      }
    }
  }

  function tick() {
    if (looking) return;
    looking = true;
    look()
      .catch((error) => logger.warn({ err: error }, 'paced wakes: could not look at the phones'))
      .finally(() => {
        looking = false;
        if (waiting.size === 0) stop();
      });
  }

  return {
    /** The phone's pace gave out at this fetch: it is woken when the pace frees. */
    watch(deviceId: string): void {
      waiting.add(deviceId);
      if (timer) return;
      timer = setInterval(tick, pollMs);
      timer.unref();
    },
    /** Phones waiting for their pace in this process (tests). */
    size: () => waiting.size,
    stop,
  };
}

export type PacedWakes = ReturnType<typeof createPacedWakes>;
