// Plausible handset facts for heartbeats: a battery that drains and recharges, a network, storage
// and uptime, so dashboards and device views show something that moves.

export const SIMS = [{ subscription_id: 1, carrier: 'Simulated Carrier', slot: 0, country: 'US' }];

export const HANDSET = {
  brand: 'simulator',
  manufacturer: 'Simulator',
  model: 'Virtual Phone',
  os_version: '14',
  os_api_level: 34,
  app_version_code: 1,
  app_version_name: '1.0.0-simulator',
};

export function createTelemetry(random: () => number) {
  const bootedAt = Date.now() - Math.floor(random() * 86_400_000);
  const totalBytes = 128 * 1024 ** 3;
  let battery = 60 + Math.floor(random() * 40);
  let charging = false;
  let freeBytes = Math.floor(totalBytes * (0.3 + random() * 0.4));
  const { timeZone, locale } = Intl.DateTimeFormat().resolvedOptions();

  return {
    /** The next reading: each heartbeat drains a percent, charging from 20 % back to full. */
    next(): Record<string, unknown> {
      if (charging) battery = Math.min(100, battery + 2);
      else battery = Math.max(1, battery - 1);
      if (battery <= 20) charging = true;
      if (battery >= 100) charging = false;
      freeBytes = Math.max(0, freeBytes - Math.floor(random() * 1024 ** 2));
      return {
        battery: { level: battery, charging },
        network: { type: 'wifi', connected: true, signal_dbm: -50 - Math.floor(random() * 30) },
        storage: { free_bytes: freeBytes, total_bytes: totalBytes },
        uptime_seconds: Math.floor((Date.now() - bootedAt) / 1000),
        timezone: timeZone,
        locale,
      };
    },
  };
}
