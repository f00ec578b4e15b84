import { createHash, randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { describeError, HttpError, request } from './api';
import { createTelemetry, HANDSET, SIMS } from './telemetry';
import type { DeviceSettings, OutboxRow, PhoneOptions } from './types';

export type { DeviceSettings, OutboxRow, PhoneOptions };

export const FAILURE_CODE = 'RESULT_ERROR_GENERIC_FAILURE';
const REPORT_ATTEMPTS = 3;

/** One simulated phone app: pairs, heartbeats, sends what its outbox holds and reports outcomes. */
export class SimulatedPhone {
  readonly hardwareKey: string;
  device: DeviceSettings | undefined;
  private token = '';
  private readonly options: Required<
    Pick<PhoneOptions, 'pollSeconds' | 'settingsSeconds' | 'sentAfterMs' | 'deliveredAfterMs' | 'failureRatio'>
  > &
    PhoneOptions;
  private readonly log: (line: string) => void;
  private readonly random: () => number;
  private readonly telemetry;
  private readonly abort = new AbortController();
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly taken = new Set<string>();
  private readonly queue: OutboxRow[] = [];
  private sender: Promise<void> | undefined;
  private sending: string | undefined;
  private heartbeatTimer: NodeJS.Timeout | undefined;
  private lastHeartbeatAt = 0;
  private lastSettingsAt = 0;
  private lastSendAt = 0;
  private heartbeatsStopped = false;

  constructor(options: PhoneOptions) {
    this.options = {
      pollSeconds: 5,
      settingsSeconds: 30,
      sentAfterMs: 500,
      deliveredAfterMs: 2000,
      failureRatio: 0,
      ...options,
    };
    this.hardwareKey = options.hardwareKey ?? `sim-${randomBytes(12).toString('hex')}`;
    const prefix = options.label ? `[${options.label}] ` : '';
    const log = options.log ?? ((line: string) => process.stdout.write(`${new Date().toISOString()} ${line}\n`));
    this.log = (line) => log(prefix + line);
    this.random = options.random ?? Math.random;
    this.telemetry = createTelemetry(this.random);
  }

  get deviceId(): string | undefined {
    return this.device?.id;
  }

  get stopped(): boolean {
    return this.abort.signal.aborted;
  }

  /** Pairs, sends a first heartbeat, then keeps heartbeating and polling until stop(). */
  async start(): Promise<void> {
    const { body } = await request<{ device: DeviceSettings; device_token: string }>(
      this.options.server,
      'POST',
      '/v1/device/pair',
      {
        body: {
          code: this.options.code,
          hardware_key: this.hardwareKey,
          ...(this.options.name ? { name: this.options.name } : {}),
          ...HANDSET,
          build_id: 'SIM.1',
        },
      },
    );
    this.token = body.device_token;
    this.device = body.device;
    this.lastSettingsAt = Date.now();
    this.log(`paired: device ${body.device.id} "${body.device.name}" (hardware key ${this.hardwareKey})`);
    if (this.options.printToken) this.log(`device token: ${this.token}`);
    await this.heartbeat();
    void this.pollLoop();
    const silentAfter = this.options.stopHeartbeatsAfterSeconds;
    if (silentAfter !== undefined) {
      this.track(sleep(silentAfter * 1000, undefined, { signal: this.abort.signal }).then(() => this.stopHeartbeats()));
    }
  }

  /** Stops every loop and waits for requests in flight; pending `delivered` reports are dropped. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.abort.abort();
    clearTimeout(this.heartbeatTimer);
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
    await this.sender;
    this.log('stopped');
  }

  /** Stops heartbeating (the phone keeps fetching its outbox): the service will mark it offline. */
  stopHeartbeats(): void {
    if (this.heartbeatsStopped) return;
    this.heartbeatsStopped = true;
    clearTimeout(this.heartbeatTimer);
    this.log('heartbeats stopped: simulating a phone gone silent');
  }

  /** Forwards a text the phone received; null when receiving is turned off for this phone. */
  async receive(sender: string, text: string): Promise<{ inserted: boolean; message: { id: string } } | null> {
    if (this.device && !this.device.receive_enabled) {
      this.log(`inbound from ${sender} not forwarded: receive_enabled is false`);
      return null;
    }
    const receivedAt = new Date().toISOString();
    const fingerprint = createHash('sha256')
      .update(`${this.hardwareKey}\n${sender}\n${receivedAt}\n${text}`)
      .digest('hex');
    const { status, body } = await this.call<{ inserted: boolean; message: { id: string } }>(
      'POST',
      '/v1/device/inbound',
      {
        sender,
        body: text,
        received_at: receivedAt,
        fingerprint,
      },
    );
    this.log(
      `inbound from ${sender} forwarded: message ${body.message.id} (${status === 201 ? 'stored' : 'already known'})`,
    );
    return body;
  }

  private async heartbeat(): Promise<void> {
    if (this.stopped || this.heartbeatsStopped) return;
    try {
      const { body } = await this.call<{ device: DeviceSettings }>('POST', '/v1/device/heartbeat', {
        ...HANDSET,
        sims: SIMS,
        telemetry: this.telemetry.next(),
      });
      this.lastHeartbeatAt = Date.now();
      this.apply(body.device, 'heartbeat');
      this.log(`heartbeat: ${body.device.online ? 'online' : 'offline'}, next in ${this.heartbeatMs() / 1000}s`);
    } catch (error) {
      this.lastHeartbeatAt = Date.now();
      this.failed('heartbeat', error);
    }
    this.scheduleHeartbeat();
  }

  private heartbeatMs(): number {
    const seconds = this.options.heartbeatSeconds ?? (this.device?.heartbeat_interval_minutes ?? 15) * 60;
    return seconds * 1000;
  }

  private scheduleHeartbeat(): void {
    clearTimeout(this.heartbeatTimer);
    if (this.stopped || this.heartbeatsStopped) return;
    const wait = Math.max(0, this.lastHeartbeatAt + this.heartbeatMs() - Date.now());
    this.heartbeatTimer = setTimeout(() => this.track(this.heartbeat()), wait);
  }

  /** New settings from the service; a changed heartbeat interval re-times the next heartbeat. */
  private apply(device: DeviceSettings, from: string): void {
    const before = this.device;
    this.device = device;
    this.lastSettingsAt = Date.now();
    if (!before) return;
    const changed = (
      ['enabled', 'receive_enabled', 'heartbeat_interval_minutes', 'send_delay_seconds'] as const
    ).filter((field) => before[field] !== device[field]);
    if (changed.length === 0) return;
    this.log(`settings changed (${from}): ${changed.map((field) => `${field}=${device[field]}`).join(', ')}`);
    if (changed.includes('heartbeat_interval_minutes') && from !== 'heartbeat') this.scheduleHeartbeat();
  }

  private async pollLoop(): Promise<void> {
    while (!this.stopped) {
      await this.track(this.poll());
      try {
        await sleep(this.options.pollSeconds * 1000, undefined, { signal: this.abort.signal });
      } catch {
        return;
      }
    }
  }

  private async poll(): Promise<void> {
    try {
      if (Date.now() - this.lastSettingsAt >= this.options.settingsSeconds * 1000) {
        const { body } = await this.call<{ device: DeviceSettings }>('GET', '/v1/device');
        this.apply(body.device, 'refresh');
      }
      const { body } = await this.call<{ data: OutboxRow[] }>('GET', '/v1/device/outbox');
      this.forgetReported(body.data);
      const fresh = body.data.filter((row) => !this.taken.has(row.id));
      if (fresh.length === 0) return;
      for (const row of fresh) this.taken.add(row.id);
      this.queue.push(...fresh);
      this.log(`outbox: ${fresh.length} new message${fresh.length === 1 ? '' : 's'} (${this.queue.length} waiting)`);
      this.sender ??= this.sendAll().finally(() => (this.sender = undefined));
    } catch (error) {
      this.failed('outbox fetch', error);
    }
  }

  /** Ids with an outcome leave the outbox for good: only what is still there or still ours stays remembered. */
  private forgetReported(outbox: OutboxRow[]): void {
    const keep = new Set([...outbox, ...this.queue].map((row) => row.id));
    if (this.sending) keep.add(this.sending);
    for (const id of this.taken) if (!keep.has(id)) this.taken.delete(id);
  }

  /** Sends one message at a time, send_delay_seconds apart, as the app does. */
  private async sendAll(): Promise<void> {
    for (let row = this.queue.shift(); row && !this.stopped; row = this.queue.shift()) {
      this.sending = row.id;
      const delayMs = (this.device?.send_delay_seconds ?? 0) * 1000;
      const gap = this.lastSendAt + delayMs - Date.now();
      try {
        if (gap > 0) await sleep(gap, undefined, { signal: this.abort.signal });
        await sleep(this.options.sentAfterMs, undefined, { signal: this.abort.signal });
      } catch {
        return;
      }
      this.lastSendAt = Date.now();
      await this.track(this.sendOne(row));
    }
    this.sending = undefined;
  }

  private async sendOne(row: OutboxRow): Promise<void> {
    const fails = this.random() < this.options.failureRatio;
    try {
      if (fails) {
        await this.report(row.id, 'failed', {
          error_code: FAILURE_CODE,
          error_message: 'Simulated failure (--failure-ratio)',
        });
        this.log(`failed ${row.id} to ${row.to} (${FAILURE_CODE})`);
        return;
      }
      await this.report(row.id, 'sent');
      this.log(`sent ${row.id} to ${row.to}`);
    } catch (error) {
      // Still in the outbox without an outcome: the next fetch hands it out again.
      this.taken.delete(row.id);
      this.failed(`report for ${row.id}`, error);
      return;
    }
    this.track(this.deliverLater(row));
  }

  private async deliverLater(row: OutboxRow): Promise<void> {
    for (let attempt = 1; attempt <= REPORT_ATTEMPTS; attempt++) {
      try {
        await sleep(this.options.deliveredAfterMs, undefined, { signal: this.abort.signal });
      } catch {
        return;
      }
      try {
        await this.report(row.id, 'delivered');
        this.log(`delivered ${row.id} to ${row.to}`);
        return;
      } catch (error) {
        this.failed(`delivered report for ${row.id} (attempt ${attempt} of ${REPORT_ATTEMPTS})`, error);
        if (error instanceof HttpError && error.status < 500 && error.status !== 429) return;
      }
    }
  }

  private report(id: string, status: 'sent' | 'delivered' | 'failed', extra: Record<string, string> = {}) {
    return this.call('POST', `/v1/device/messages/${id}/status`, { status, at: new Date().toISOString(), ...extra });
  }

  private call<T>(method: string, path: string, body?: unknown) {
    return request<T>(this.options.server, method, path, { body, headers: { authorization: `Bearer ${this.token}` } });
  }

  private failed(what: string, error: unknown): void {
    if (error instanceof HttpError && error.status === 401 && !this.stopped) {
      // Unpaired (or the token was replaced by a repeat pairing): nothing more this phone can do.
      this.log(`${what} refused (401): this phone is no longer paired; stopping`);
      void this.stop();
      return;
    }
    this.log(`${what} failed: ${describeError(error)}`);
  }

  private track<T>(promise: Promise<T>): Promise<T | undefined> {
    const tracked = promise.catch((error) => {
      if (!this.stopped) this.failed('task', error);
      return undefined;
    });
    this.inFlight.add(tracked);
    void tracked.finally(() => this.inFlight.delete(tracked));
    return tracked;
  }
}
