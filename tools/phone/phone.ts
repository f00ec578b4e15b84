import { createHash, randomBytes } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describeError, HttpError, request } from './api';
import { openEvents } from './events';
import { openJournal, type Journal, type Outcome, type Report } from './journal';
import { createTelemetry, HANDSET, SIMS } from './telemetry';
import type { DeviceSettings, OutboxRow, PhoneOptions } from './types';

export type { DeviceSettings, OutboxRow, PhoneOptions };

export const FAILURE_CODE = 'RESULT_ERROR_GENERIC_FAILURE';
// Reports wait for the service this long at most between tries (they never give up while running).
const REPORT_BACKOFF_MAX_MS = 10_000;
// The service's batched report endpoint takes at most 500; one request per tick of outcomes.
const REPORTS_PER_REQUEST = 500;
const INBOUND_ATTEMPTS = 5;
// With the live channel open, the outbox is still fetched this often in case an event was lost.
const LIVE_POLL_SECONDS = 60;
const LIVE_RETRY_MAX_MS = 10_000;

type PendingReport = Report;

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
  /** Handed out and waiting to be sent. */
  private readonly taken = new Set<string>();
  private readonly queue: OutboxRow[] = [];
  private sender: Promise<void> | undefined;
  /**
   * What this phone did with each message it sent (by id): the outcome to report again if asked,
   * with the reports not yet accepted; on disk with `stateDir`, so a restart after a crash neither
   * sends those texts again nor forgets their outcomes.
   */
  private readonly journal: Journal;
  private get outcomes() {
    return this.journal.outcomes;
  }
  /** Texts actually sent per message id: never more than one. */
  readonly sendCounts = new Map<string, number>();
  /** Reports not yet accepted by the service, oldest first; kept while it is unreachable. */
  private readonly reports: PendingReport[] = [];
  private reporter: Promise<unknown> | undefined;
  private readonly handedOutAgain = new Set<string>();
  private heartbeatTimer: NodeJS.Timeout | undefined;
  private lastHeartbeatAt = 0;
  private lastSettingsAt = 0;
  private lastSendAt = 0;
  private heartbeatsStopped = false;
  /** The live channel is open: the outbox is fetched when it says so, polling is only a safety net. */
  live = false;
  /** Ends the poll loop's current wait (the live channel said there is work). */
  private wakePoll: (() => void) | undefined;
  /** Work was announced while a fetch ran: fetch again at once. */
  private wakeRequested = false;

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
    // Every pending delivery waits on this signal: hundreds at a time under load is expected.
    setMaxListeners(0, this.abort.signal);
    this.journal = openJournal(
      options.stateDir && path.join(options.stateDir, `${this.hardwareKey.replace(/[^A-Za-z0-9._-]/g, '_')}.jsonl`),
    );
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
    this.resume();
    void this.pollLoop();
    if (this.options.live !== false) void this.liveLoop();
    const silentAfter = this.options.stopHeartbeatsAfterSeconds;
    if (silentAfter !== undefined) {
      void this.track(
        sleep(silentAfter * 1000, undefined, { signal: this.abort.signal }).then(() => this.stopHeartbeats()),
      );
    }
  }

  /**
   * After a crash: what the journal says was sent but not reported is reported now (and a text sent
   * but not yet delivered gets its delivery report later), before the outbox hands any of it out again.
   */
  private resume(): void {
    const unreported = this.journal.unreported;
    const undelivered = [...this.outcomes].filter(([, { status }]) => status === 'sent');
    if (unreported.length === 0 && undelivered.length === 0) return;
    this.log(
      `resuming from ${this.options.stateDir}: ${this.outcomes.size} message(s) already handled, ${unreported.length} report(s) to send`,
    );
    for (const report of unreported) this.reports.push(report);
    if (this.reports.length > 0)
      this.reporter ??= this.track(this.reportAll()).finally(() => (this.reporter = undefined));
    for (const [id] of undelivered) void this.track(this.deliverLater({ id, to: 'its recipient' }));
  }

  /** Reports waiting for the service. */
  get pendingReports(): number {
    return this.reports.length;
  }

  /** Stops every loop and waits for requests in flight; reports still waiting are dropped (and counted). */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.abort.abort();
    clearTimeout(this.heartbeatTimer);
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
    await this.sender;
    await this.reporter;
    if (this.reports.length > 0) this.log(`${this.reports.length} report(s) not delivered to the service`);
    this.journal.compact();
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
    // The fingerprint is made once, when the text arrives: a retried forward carries the same one,
    // so the service stores the text once however often it is forwarded.
    const receivedAt = new Date().toISOString();
    const fingerprint = createHash('sha256')
      .update(`${this.hardwareKey}\n${sender}\n${receivedAt}\n${text}`)
      .digest('hex');
    for (let attempt = 1; ; attempt++) {
      try {
        const { status, body } = await this.call<{ inserted: boolean; message: { id: string } }>(
          'POST',
          '/v1/device/inbound',
          { sender, body: text, received_at: receivedAt, fingerprint },
        );
        this.log(
          `inbound from ${sender} forwarded: message ${body.message.id} (${status === 201 ? 'stored' : 'already known'})`,
        );
        return body;
      } catch (error) {
        if (!retryable(error) || attempt >= INBOUND_ATTEMPTS || this.stopped) throw error;
        this.failed(`inbound from ${sender} (attempt ${attempt} of ${INBOUND_ATTEMPTS})`, error);
        await sleep(backoffMs(attempt), undefined, { signal: this.abort.signal });
      }
    }
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
    this.heartbeatTimer = setTimeout(() => void this.track(this.heartbeat()), wait);
  }

  /** New settings from the service; a changed heartbeat interval re-times the next heartbeat. */
  private apply(device: DeviceSettings, from: string): void {
    const before = this.device;
    this.device = device;
    this.lastSettingsAt = Date.now();
    if (!before) return;
    const changed = (
      [
        'enabled',
        'receive_enabled',
        'heartbeat_interval_minutes',
        'send_delay_seconds',
        'send_delay_jitter_seconds',
      ] as const
    ).filter((field) => before[field] !== device[field]);
    if (changed.length === 0) return;
    this.log(`settings changed (${from}): ${changed.map((field) => `${field}=${device[field]}`).join(', ')}`);
    if (changed.includes('heartbeat_interval_minutes') && from !== 'heartbeat') this.scheduleHeartbeat();
  }

  private async pollLoop(): Promise<void> {
    while (!this.stopped) {
      this.wakeRequested = false;
      await this.track(this.poll());
      if (this.wakeRequested) continue;
      // With the live channel open the outbox is fetched when it says so; polling is a safety net.
      const waitMs = (this.live ? LIVE_POLL_SECONDS : this.options.pollSeconds) * 1000;
      const woken = new Promise<void>((resolve) => (this.wakePoll = resolve));
      try {
        await Promise.race([sleep(waitMs, undefined, { signal: this.abort.signal }), woken]);
      } catch {
        return;
      } finally {
        this.wakePoll = undefined;
      }
    }
  }

  /**
   * Keeps GET /v1/device/events open: `ready` and `outbox` fetch the outbox at once, `settings` reads
   * the settings, `unpaired` stops the phone. While it is down the phone polls, and reconnects with
   * backoff.
   */
  private async liveLoop(): Promise<void> {
    let attempt = 0;
    while (!this.stopped) {
      try {
        const events = await openEvents(this.options.server, this.token, this.abort.signal);
        for await (const { event } of events) {
          if (!this.live) {
            this.live = true;
            attempt = 0;
            this.log('live channel open: fetching when told, polling every minute as a safety net');
          }
          if (event === 'ready' || event === 'outbox') this.wake();
          else if (event === 'settings') void this.track(this.refreshSettings());
          else if (event === 'unpaired') {
            this.log('live channel: unpaired by the service, this phone is no longer paired; stopping');
            void this.stop();
            return;
          }
        }
        throw new Error('the stream ended');
      } catch (error) {
        if (this.stopped) return;
        if (error instanceof HttpError && error.status === 401) return this.failed('live channel', error);
        if (this.live)
          this.log(`live channel dropped (${describeError(error)}); polling every ${this.options.pollSeconds} s`);
        this.live = false;
        // Whatever was announced while it was down is fetched now.
        this.wake();
        try {
          await sleep(Math.min(backoffMs(attempt++), LIVE_RETRY_MAX_MS), undefined, { signal: this.abort.signal });
        } catch {
          return;
        }
      }
    }
  }

  private wake(): void {
    this.wakeRequested = true;
    this.wakePoll?.();
  }

  private async refreshSettings(): Promise<void> {
    try {
      const { body } = await this.call<{ device: DeviceSettings }>('GET', '/v1/device');
      this.apply(body.device, 'live channel');
    } catch (error) {
      this.failed('settings fetch', error);
    }
  }

  private async poll(): Promise<void> {
    try {
      if (Date.now() - this.lastSettingsAt >= this.options.settingsSeconds * 1000) {
        const { body } = await this.call<{ device: DeviceSettings }>('GET', '/v1/device');
        this.apply(body.device, 'refresh');
      }
      const { body } = await this.call<{ data: OutboxRow[] }>('GET', '/v1/device/outbox');
      const fresh: OutboxRow[] = [];
      for (const row of body.data) {
        if (this.taken.has(row.id)) continue;
        const done = this.outcomes.get(row.id);
        if (done) this.reportAgain(row.id, done.status, done.extra);
        else fresh.push(row);
      }
      if (fresh.length === 0) return;
      for (const row of fresh) this.taken.add(row.id);
      this.queue.push(...fresh);
      this.log(`outbox: ${fresh.length} new message${fresh.length === 1 ? '' : 's'} (${this.queue.length} waiting)`);
      this.sender ??= this.sendAll().finally(() => (this.sender = undefined));
    } catch (error) {
      this.failed('outbox fetch', error);
    }
  }

  /**
   * A message this phone already sent is in the outbox again: its outcome has not reached the service
   * (the report failed or is still queued). The text is not sent again; the outcome is reported again
   * unless a report for it is still waiting.
   */
  private reportAgain(id: string, status: Outcome, extra: Record<string, string>): void {
    const waiting = this.reports.some((report) => report.id === id);
    // One line per message: while the service is down the same rows come back on every fetch.
    if (!this.handedOutAgain.has(id)) {
      this.handedOutAgain.add(id);
      this.log(
        `${id} handed out again: already ${status}, ${waiting ? 'its report is waiting' : 'reporting it again'} (not sending it again)`,
      );
    }
    if (!waiting) this.enqueue({ id, status, at: new Date().toISOString(), extra });
  }

  /**
   * Sends one message at a time, send_delay_seconds apart plus a random extra pause of up to
   * send_delay_jitter_seconds (drawn afresh for each message), as the app does.
   */
  private async sendAll(): Promise<void> {
    for (let row = this.queue.shift(); row && !this.stopped; row = this.queue.shift()) {
      const jitter = this.device?.send_delay_jitter_seconds ?? 0;
      const jitterMs = jitter > 0 ? jitter * 1000 * this.random() : 0;
      const delayMs = (this.device?.send_delay_seconds ?? 0) * 1000 + jitterMs;
      const gap = this.lastSendAt + delayMs - Date.now();
      try {
        if (gap > 0) await sleep(gap, undefined, { signal: this.abort.signal });
        await sleep(this.options.sentAfterMs, undefined, { signal: this.abort.signal });
      } catch {
        return;
      }
      this.lastSendAt = Date.now();
      this.sendOne(row);
      this.taken.delete(row.id);
    }
  }

  /** The text goes out (once per message id, ever); its outcome is remembered and queued for the service. */
  private sendOne(row: OutboxRow): void {
    if (this.outcomes.has(row.id)) return;
    const at = new Date().toISOString();
    if (this.random() < this.options.failureRatio) {
      const extra = { error_code: FAILURE_CODE, error_message: 'Simulated failure (--failure-ratio)' };
      this.enqueue({ id: row.id, status: 'failed', at, extra });
      this.sendCounts.set(row.id, (this.sendCounts.get(row.id) ?? 0) + 1);
      this.log(`failed ${row.id} to ${row.to} (${FAILURE_CODE})`);
      return;
    }
    // Written down first, then sent: a crash in between loses a text rather than sending it twice.
    this.enqueue({ id: row.id, status: 'sent', at, extra: {} });
    this.sendCounts.set(row.id, (this.sendCounts.get(row.id) ?? 0) + 1);
    this.log(`sent ${row.id} to ${row.to}`);
    void this.track(this.deliverLater(row));
  }

  private async deliverLater(row: Pick<OutboxRow, 'id' | 'to'>): Promise<void> {
    try {
      await sleep(this.options.deliveredAfterMs, undefined, { signal: this.abort.signal });
    } catch {
      return;
    }
    this.enqueue({ id: row.id, status: 'delivered', at: new Date().toISOString(), extra: {} });
    this.log(`delivered ${row.id} to ${row.to}`);
  }

  /** Writes the outcome down (the journal), then queues its report. */
  private enqueue(report: PendingReport): void {
    this.journal.record(report);
    this.reports.push(report);
    this.reporter ??= this.track(this.reportAll()).finally(() => (this.reporter = undefined));
  }

  /**
   * Delivers the queued reports in order, up to REPORTS_PER_REQUEST in one request (the service
   * applies them in order, a message's later report after its earlier one). While the service cannot
   * be reached (network error, 5xx, 429) the head waits and is tried again, 0.5 s later at first and
   * up to 10 s apart; a report the service refuses for good (its message is gone) is dropped.
   */
  private async reportAll(): Promise<void> {
    let failures = 0;
    while (this.reports.length > 0 && !this.stopped) {
      const chunk = this.reports.slice(0, REPORTS_PER_REQUEST);
      const what =
        chunk.length === 1
          ? `${chunk[0].status} report for ${chunk[0].id}`
          : `${chunk.length} reports for ${chunk[0].id}…`;
      try {
        const answer = await this.call<{ data: Array<{ id: string; error?: { code: string } }> }>(
          'POST',
          '/v1/device/messages/status',
          {
            reports: chunk.map((report) => ({ id: report.id, status: report.status, at: report.at, ...report.extra })),
          },
        );
        this.journal.accepted(this.reports.splice(0, chunk.length));
        for (const refused of answer.body.data.filter((item) => item.error))
          this.log(`report for ${refused.id} refused (${refused.error?.code}): dropped`);
        if (failures > 0) this.log(`${what} accepted after ${failures} failed attempt${failures === 1 ? '' : 's'}`);
        failures = 0;
      } catch (error) {
        if (!retryable(error)) {
          this.journal.accepted(this.reports.splice(0, chunk.length));
          this.failed(what, error);
          if (error instanceof HttpError && error.status === 401) return;
          continue;
        }
        failures++;
        const waitMs = Math.min(REPORT_BACKOFF_MAX_MS, backoffMs(failures));
        this.failed(`${what} (${this.reports.length} waiting; retrying in ${waitMs / 1000} s)`, error);
        try {
          await sleep(waitMs, undefined, { signal: this.abort.signal });
        } catch {
          return;
        }
      }
    }
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

  /** A task in the background: its failure is reported, never thrown (the promise never rejects); stop() waits for it. */
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

/** Worth trying again: the service was unreachable, overloaded or failing, not refusing the request. */
function retryable(error: unknown): boolean {
  if (!(error instanceof HttpError)) return true;
  return error.status >= 500 || error.status === 429 || error.status === 408;
}

/** 0.5 s, 1 s, 2 s … */
function backoffMs(attempt: number): number {
  return 500 * 2 ** Math.max(0, attempt - 1);
}
