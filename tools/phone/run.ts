import { createPairingCode } from './api';
import type { CliOptions } from './args';
import { SimulatedPhone } from './phone';

export interface Fleet {
  phones: SimulatedPhone[];
  stop(): Promise<void>;
}

/**
 * Pairs and starts the phones one after another (each with its own code and hardware key), then
 * forwards the --inbound texts from each. A phone that fails to pair stops the whole fleet.
 */
export async function runPhones(options: CliOptions, log?: (line: string) => void): Promise<Fleet> {
  const phones: SimulatedPhone[] = [];
  const fleet: Fleet = {
    phones,
    stop: async () => {
      await Promise.all(phones.map((phone) => phone.stop()));
    },
  };
  const many = options.phones > 1;
  try {
    for (let i = 0; i < options.phones; i++) {
      const code = options.apiKey ? await createPairingCode(options.server, options.apiKey) : options.codes[i];
      const phone = new SimulatedPhone({
        server: options.server,
        code,
        hardwareKey: options.hardwareKey && (many ? `${options.hardwareKey}-${i + 1}` : options.hardwareKey),
        name: options.name && (many ? `${options.name} ${i + 1}` : options.name),
        label: `phone ${i + 1}`,
        heartbeatSeconds: options.heartbeatSeconds,
        pollSeconds: options.pollSeconds,
        live: options.live,
        settingsSeconds: options.settingsSeconds,
        sentAfterMs: options.sentAfterMs,
        deliveredAfterMs: options.deliveredAfterMs,
        failureRatio: options.failureRatio,
        stopHeartbeatsAfterSeconds: options.stopHeartbeatsAfterSeconds,
        printToken: options.printToken,
        stateDir: options.stateDir,
        log,
      });
      await phone.start();
      phones.push(phone);
    }
    for (const phone of phones) {
      for (const { sender, text } of options.inbound) await phone.receive(sender, text);
    }
  } catch (error) {
    await fleet.stop();
    throw error;
  }
  return fleet;
}
