import type { Schemas } from '../api/client';

/** A SIM a phone reported (its subscription id is what a send names). */
export interface Sim {
  subscription_id: number;
  carrier?: string;
  slot?: number;
  country?: string;
}

/** The phone's SIMs, leaving out anything the phone sent that is not one. */
export function simsOf(device: Schemas['Device']): Sim[] {
  return Array.isArray(device.sims)
    ? (device.sims as Sim[]).filter((s) => s && typeof s.subscription_id === 'number')
    : [];
}

/** "SIM 1 · Carrier": by slot when the phone says it, else by subscription id. */
export function simLabel(s: { subscription_id: number; carrier?: string; slot?: number }) {
  return `SIM ${s.slot !== undefined ? s.slot + 1 : s.subscription_id}${s.carrier ? ` · ${s.carrier}` : ''}`;
}
