import { Text } from '@mantine/core';
import { useEffect, useState } from 'react';
import { api, ok, type Schemas } from '../api/client';
import { duration, plural, when } from '../lib/format';
import { useLoad } from '../lib/use-load';

// A phone's pace in words, and how long a send (or its queue) takes at it: GET /v1/devices/{id}/estimate
// places a send as POST /v1/messages would, so what the form says before sending is what the batch says after.

/** The slowest of the phone's limits, in words: "30 texts per 30 min (a text every 60 s)". */
export function paceWords(device: Schemas['Device']): string {
  const limits = [
    device.sending_capacity != null
      ? `${plural(device.sending_capacity, 'text')} per ${duration(device.sending_capacity_minutes * 60)}`
      : null,
    device.max_sends_per_day != null ? `${plural(device.max_sends_per_day, 'text')} a day` : null,
    device.max_sends_per_hour != null ? `${plural(device.max_sends_per_hour, 'text')} an hour` : null,
    device.max_sends_per_minute != null ? `${plural(device.max_sends_per_minute, 'text')} a minute` : null,
  ].filter((limit): limit is string => limit !== null);
  return limits.length > 0 ? limits.join(', at most ') : 'no limit known';
}

export type Estimate = Schemas['Estimate'];

/** The estimate of a send of `recipients` on a phone, asked again a moment after the inputs settle. */
export function useEstimate(deviceId: string | undefined, recipients: number, scheduledAt: string | null) {
  const [settled, setSettled] = useState({ deviceId, recipients, scheduledAt });
  useEffect(() => {
    const timer = window.setTimeout(() => setSettled({ deviceId, recipients, scheduledAt }), 250);
    return () => window.clearTimeout(timer);
  }, [deviceId, recipients, scheduledAt]);
  return useLoad(
    async (): Promise<Estimate | null> =>
      settled.deviceId
        ? (
            await ok(
              api.GET('/v1/devices/{id}/estimate', {
                params: {
                  path: { id: settled.deviceId },
                  query: {
                    recipients: settled.recipients,
                    ...(settled.scheduledAt ? { scheduled_at: settled.scheduledAt } : {}),
                  },
                },
              }),
            )
          ).estimate
        : null,
    [settled.deviceId, settled.recipients, settled.scheduledAt],
  );
}

/** What the send form says before sending: how long on this phone at its pace, and when it would be done. */
export function SendEstimate({
  device,
  recipients,
  scheduledAt,
}: {
  device: Schemas['Device'];
  recipients: number;
  scheduledAt: string | null;
}) {
  const { data } = useEstimate(device.id, recipients, scheduledAt);
  const estimate = data && data.device_id === device.id && data.recipients === recipients ? data : null;
  return (
    <Text size="sm" data-testid="send-estimate" aria-live="polite">
      {recipients === 0 || !estimate
        ? `${device.name} sends at ${paceWords(device)}.`
        : `${plural(recipients, 'text')} on ${device.name} at ${paceWords(device)}` +
          `${estimate.ahead > 0 ? `, behind ${plural(estimate.ahead, 'text')} already waiting` : ''}` +
          `${estimate.paused_until ? `, paused until ${when(estimate.paused_until)} for Android's limit` : ''}: ` +
          `about ${duration(estimate.duration_seconds)}, the last one around ${when(estimate.finishes_at)}.`}
    </Text>
  );
}

/** A phone card's queue: how many texts wait, and when the last of them should go. */
export function QueueWords({ device }: { device: Schemas['Device'] }) {
  const { data } = useEstimate(device.queue_depth > 0 ? device.id : undefined, 0, null);
  if (device.queue_depth === 0) return <>empty</>;
  return (
    <>
      {plural(device.queue_depth, 'text')} waiting
      {data ? `, empty around ${when(data.finishes_at)}` : ''}
    </>
  );
}

export function PausedNote({ device }: { device: Schemas['Device'] }) {
  if (!device.paused_until || new Date(device.paused_until).getTime() <= Date.now()) return null;
  return (
    <Text size="xs" c="var(--pg-danger)">
      Android refused texts for its sending limit: paused until {when(device.paused_until)}, then they go again.
    </Text>
  );
}
