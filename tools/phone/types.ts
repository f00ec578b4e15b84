// What a simulated phone is told and what it reads from the service.

export interface PhoneOptions {
  /** Base address of the service, e.g. http://localhost:3000. */
  server: string;
  /** Pairing code from the dashboard or POST /v1/devices/pairing-codes. */
  code: string;
  /** Stable per handset; a repeat pairing with the same key finds the same device. Random by default. */
  hardwareKey?: string;
  /** Device name sent at pairing (the service derives one from the model otherwise). */
  name?: string;
  /** Prefix of every log line. */
  label?: string;
  /** Heartbeat every this many seconds instead of the device's heartbeat_interval_minutes. */
  heartbeatSeconds?: number;
  /**
   * Keep the live channel (GET /v1/device/events) open and fetch when it says so (default true);
   * `pollSeconds` applies only while it is down.
   */
  live?: boolean;
  /** How often the outbox is fetched without the live channel (seconds, default 5). */
  pollSeconds?: number;
  /** How often settings are re-read with GET /v1/device (seconds, default 30); a real phone gets a push. */
  settingsSeconds?: number;
  /** Time from picking a message up to reporting it sent (ms, default 500). */
  sentAfterMs?: number;
  /** Time from `sent` to `delivered` (ms, default 2000). */
  deliveredAfterMs?: number;
  /** Share of messages (0..1) reported `failed` instead of sent. */
  failureRatio?: number;
  /** Stop heartbeating after this many seconds, as a phone that went silent. */
  stopHeartbeatsAfterSeconds?: number;
  /**
   * Keep what the phone sent and has not yet reported on disk here (one file per hardware key): a
   * phone killed and started again with the same hardware key sends none of it again. In memory only
   * when unset.
   */
  stateDir?: string;
  /** Log the device token once at pairing. */
  printToken?: boolean;
  log?: (line: string) => void;
  random?: () => number;
}

export interface OutboxRow {
  id: string;
  batch_id: string;
  body: string;
  to: string;
  sim_subscription_id: number | null;
}

export interface DeviceSettings {
  id: string;
  name: string;
  enabled: boolean;
  receive_enabled: boolean;
  heartbeat_interval_minutes: number;
  send_delay_seconds: number;
  /** A random extra pause of up to this many seconds before each send (absent from older servers). */
  send_delay_jitter_seconds?: number;
  [field: string]: unknown;
}
