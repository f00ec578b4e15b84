import { Group, Select } from '@mantine/core';
import type { Schemas } from '../../api/client';
import { simLabel, simsOf } from '../../lib/sims';

/** Which phone sends (or the default one), and which of its SIMs (or the phone's default). */
export function PhoneAndSim({
  devices,
  device,
  deviceId,
  sim,
  onDevice,
  onSim,
}: {
  devices: Schemas['Device'][];
  /** The phone the send goes through: the one picked, else the default. */
  device: Schemas['Device'] | undefined;
  deviceId: string;
  sim: string;
  onDevice(id: string): void;
  onSim(sim: string): void;
}) {
  const sims = device ? simsOf(device) : [];
  return (
    <Group grow wrap="wrap">
      <Select
        label="Phone"
        data={[
          { value: '', label: 'Default phone' },
          ...devices.map((d) => ({ value: d.id, label: `${d.name}${d.online ? '' : ' (offline)'}` })),
        ]}
        value={deviceId}
        onChange={(v) => onDevice(v ?? '')}
        allowDeselect={false}
      />
      <Select
        label="SIM"
        data={[
          { value: '', label: 'Phone default' },
          ...sims.map((s) => ({ value: String(s.subscription_id), label: simLabel(s) })),
        ]}
        value={sim}
        onChange={(v) => onSim(v ?? '')}
        allowDeselect={false}
      />
    </Group>
  );
}
