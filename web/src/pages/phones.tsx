import { Badge, Button, Card, Group, SimpleGrid, Stack, Text } from '@mantine/core';
import { useCallback, useState } from 'react';
import { api, ok, type Schemas } from '../api/client';
import { useConfirm } from '../components/confirm';
import { Page } from '../components/page';
import { StatusBadge } from '../components/status-badge';
import { Empty, FormError, Load } from '../components/states';
import { ago, when } from '../lib/format';
import { LIVE_MS, useLoad } from '../lib/use-load';
import { useSubmit } from '../lib/use-submit';
import { DeviceSettings } from './device-settings';
import { simLabel, simsOf } from '../lib/sims';
import { Pairing } from './pairing';
import { PausedNote, paceWords, QueueWords } from '../components/pace';
import { CopyId } from '../components/copy-value';

function telemetry(device: Schemas['Device']) {
  const t = (device.telemetry ?? {}) as {
    battery?: { level?: number; charging?: boolean };
    network?: { type?: string; connected?: boolean };
  };
  const battery =
    typeof t.battery?.level === 'number' ? `${t.battery.level}%${t.battery.charging ? ' (charging)' : ''}` : '—';
  const network = t.network?.type ? `${t.network.type}${t.network.connected === false ? ' (disconnected)' : ''}` : '—';
  return { battery, network };
}

export function Phones() {
  const confirm = useConfirm();
  const state = useLoad(() => ok(api.GET('/v1/devices')).then((r) => r.data), [], LIVE_MS);
  const [editing, setEditing] = useState<Schemas['Device'] | null>(null);
  const { reload } = state;
  const actions = useSubmit({ onDone: reload });
  const onPaired = useCallback(() => reload(), [reload]);

  async function unpair(device: Schemas['Device']) {
    const yes = await confirm({
      title: `Unpair ${device.name}?`,
      message: 'The phone stops sending and receiving for this account. Its message history stays.',
      confirmLabel: 'Unpair',
    });
    if (yes) await actions.run(() => ok(api.DELETE('/v1/devices/{id}', { params: { path: { id: device.id } } })));
  }

  return (
    <Page title="Phones">
      <Pairing onPaired={onPaired} pairedCount={state.data?.length} />
      <FormError error={actions.error} />
      <Load state={state}>
        {(devices) =>
          devices.length === 0 ? (
            <Empty title="No phones yet">Pair one above: its messages go out through it.</Empty>
          ) : (
            <SimpleGrid cols={{ base: 1, md: 2 }}>
              {devices.map((d) => {
                const { battery, network } = telemetry(d);
                const sims = simsOf(d);
                return (
                  <Card withBorder key={d.id} data-testid="device" aria-label={d.name} component="section">
                    <Stack gap="xs">
                      {/* Wraps: the SMSGate app names a phone "<manufacturer>/<product>", often longer than a small screen. */}
                      <Group justify="space-between" wrap="wrap" gap="xs">
                        <Text fw={600} component="h2" size="lg" style={{ overflowWrap: 'anywhere', minWidth: 0 }}>
                          {d.name}
                        </Text>
                        <Group gap={4}>
                          {d.is_default && <Badge variant="outline">default</Badge>}
                          <StatusBadge status={d.online ? 'online' : 'offline'} />
                          {!d.enabled && <StatusBadge status="paused" />}
                        </Group>
                      </Group>
                      <dl
                        style={{
                          display: 'grid',
                          gridTemplateColumns: 'auto 1fr',
                          gap: '2px 12px',
                          margin: 0,
                          fontSize: 14,
                        }}
                      >
                        <dt>ID</dt>
                        <dd style={{ margin: 0, minWidth: 0 }}>
                          <CopyId id={d.id} of={d.name} testId="device-id" />
                        </dd>
                        <dt>Last heartbeat</dt>
                        <dd style={{ margin: 0 }} title={when(d.last_heartbeat_at)}>
                          {ago(d.last_heartbeat_at)}
                        </dd>
                        <dt>Battery</dt>
                        <dd style={{ margin: 0 }}>{battery}</dd>
                        <dt>Network</dt>
                        <dd style={{ margin: 0 }}>{network}</dd>
                        <dt>SIMs</dt>
                        <dd style={{ margin: 0 }}>{sims.length ? sims.map(simLabel).join(', ') : '—'}</dd>
                        <dt>Model</dt>
                        <dd style={{ margin: 0 }}>{[d.manufacturer, d.model].filter(Boolean).join(' ') || '—'}</dd>
                        <dt>App version</dt>
                        <dd style={{ margin: 0 }}>{d.app_version_name ?? '—'}</dd>
                        <dt>Pace</dt>
                        <dd style={{ margin: 0 }} data-testid="device-pace">
                          {paceWords(d)}
                        </dd>
                        <dt>Queue</dt>
                        <dd style={{ margin: 0 }} data-testid="device-queue">
                          <QueueWords device={d} />
                        </dd>
                        <dt>Sent / received</dt>
                        <dd style={{ margin: 0 }}>
                          {d.sent_count} / {d.received_count}
                        </dd>
                      </dl>
                      <PausedNote device={d} />
                      {d.push_token_invalid_reason && (
                        <Text size="xs" c="var(--pg-danger)">
                          Push disabled: {d.push_token_invalid_reason}
                        </Text>
                      )}
                      <Group gap="xs">
                        <Button size="xs" variant="default" onClick={() => setEditing(d)}>
                          Settings
                        </Button>
                        {!d.is_default && (
                          <Button
                            size="xs"
                            variant="default"
                            onClick={() =>
                              void actions.run(() =>
                                ok(api.POST('/v1/devices/{id}/default', { params: { path: { id: d.id } } })),
                              )
                            }
                          >
                            Make default
                          </Button>
                        )}
                        <Button size="xs" color="red" variant="light" onClick={() => void unpair(d)}>
                          <span style={{ color: 'var(--pg-danger)' }}>Unpair</span>
                        </Button>
                      </Group>
                    </Stack>
                  </Card>
                );
              })}
            </SimpleGrid>
          )
        }
      </Load>
      {editing && (
        <DeviceSettings
          device={editing}
          onClose={() => setEditing(null)}
          onSaved={() => {
            setEditing(null);
            reload();
          }}
        />
      )}
    </Page>
  );
}
