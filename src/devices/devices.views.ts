import { iso } from '../lib/iso';
import type { Device, PairingCode, PairingRefusal } from './device.entity';

/** The only serialiser of phones: the token hash, hardware key and push token never leave. */
export const deviceView = (device: Device) => ({
  id: device.id,
  name: device.name,
  enabled: device.enabled,
  is_default: device.isDefault,
  online: device.online,
  receive_enabled: device.receiveEnabled,
  heartbeat_interval_minutes: device.heartbeatIntervalMinutes,
  send_delay_seconds: device.sendDelaySeconds,
  send_delay_jitter_seconds: device.sendDelayJitterSeconds,
  max_sends_per_minute: device.maxSendsPerMinute ?? null,
  max_sends_per_hour: device.maxSendsPerHour ?? null,
  max_sends_per_day: device.maxSendsPerDay ?? null,
  sending_capacity: device.sendingCapacity ?? null,
  sending_capacity_minutes: device.sendingCapacityMinutes,
  paused_until: iso(device.pausedUntil),
  queue_depth: device.queueDepth,
  send_window: device.sendWindow
    ? {
        timezone: device.sendWindow.timezone,
        days: device.sendWindow.days,
        start: device.sendWindow.start,
        end: device.sendWindow.end,
      }
    : null,
  preferred_sim_subscription_id: device.preferredSimSubscriptionId ?? null,
  sim_selection: device.simSelection,
  processing_order: device.processingOrder,
  sent_count: device.sentCount,
  received_count: device.receivedCount,
  brand: device.brand ?? null,
  manufacturer: device.manufacturer ?? null,
  model: device.model ?? null,
  os_version: device.osVersion ?? null,
  os_api_level: device.osApiLevel ?? null,
  app_version_code: device.appVersionCode ?? null,
  app_version_name: device.appVersionName ?? null,
  last_heartbeat_at: iso(device.lastHeartbeatAt),
  push_token_invalid_reason: device.pushTokenInvalidReason ?? null,
  push_token_invalidated_at: iso(device.pushTokenInvalidatedAt),
  sims: device.sims ?? [],
  telemetry: device.telemetry ?? {},
  created_at: device.createdAt.toISOString(),
  updated_at: device.updatedAt.toISOString(),
});

export type DeviceView = ReturnType<typeof deviceView>;

/** The code is rendered only here, in the create response (only its hash is stored). */
export const pairingCodeCreatedView = (
  code: PairingCode,
  plain: string,
  pairUrl: string,
  smsgateApiUrl: string,
) => ({
  code: plain,
  expires_at: code.expiresAt.toISOString(),
  id: code.id,
  pair_url: pairUrl,
  smsgate_api_url: smsgateApiUrl,
});

export const pairingCodeStatusView = (code: PairingCode, device: Device | null) => ({
  consumed: code.consumedAt !== null && code.consumedAt !== undefined,
  device: device ? deviceView(device) : null,
  expires_at: code.expiresAt.toISOString(),
});

/** Refused attempts with one code for one reason; nothing of what was typed is kept. */
export const pairingRefusalView = (refusal: PairingRefusal) => ({
  id: refusal.id,
  pairing_code_id: refusal.pairingCodeId,
  reason: refusal.reason,
  attempts: refusal.attempts,
  created_at: refusal.createdAt.toISOString(),
  last_attempt_at: refusal.lastAttemptAt.toISOString(),
});
