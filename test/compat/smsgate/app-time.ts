// The fake SMSGate app's time and its Android job scheduler. The app runs on "app time": a virtual
// clock the test moves, so an hour of the app (15-minute pulls, 2-second send pauses, 24-hour
// workers) takes seconds. What the server does in real time meanwhile (an event on the stream) is
// handled at the app time it arrives: before a jump, app time waits a little real time (1/1000 of
// the jump, at most 2 s) and any event arriving in that window is handled before the jump.

type Timer = { at: number; seq: number; run: () => void; cancelled: boolean };

/** Work the app is doing in real time (an HTTP call): app time does not move until it is done. */
export interface AppTime {
  now(): number;
  date(): Date;
  /** Runs `run` at app time `at` (or now); returns its cancel. */
  at(at: number, run: () => void): () => void;
  after(ms: number, run: () => void): () => void;
  sleep(ms: number): Promise<void>;
  /** Something the app does in real time: app time waits for it before moving on. */
  busy<T>(work: Promise<T>): Promise<T>;
  /** Called by what arrives from outside (the event stream), so a real wait is cut short. */
  wake(): void;
  /** Moves app time until `done()` holds; refuses to go past `within` ms of app time. */
  runUntil(done: () => boolean, options: { within: number; what: string }): Promise<void>;
  /** Moves app time to `ms` from now, doing what falls due on the way. */
  runFor(ms: number): Promise<void>;
}

export function createAppTime(options: {
  start: Date;
  /** Told before every move, with the new app time (the server's test clock follows it). */
  onMove?: (to: Date) => void | Promise<void>;
  speedup?: number;
  maxRealWaitMs?: number;
}): AppTime {
  const speedup = options.speedup ?? 1000;
  const maxRealWaitMs = options.maxRealWaitMs ?? 2000;
  let now = options.start.getTime();
  let seq = 0;
  const timers: Timer[] = [];
  const inFlight = new Set<Promise<unknown>>();
  let wakeUp: (() => void) | null = null;

  function at(when: number, run: () => void) {
    const timer: Timer = { at: Math.max(when, now), seq: seq++, run, cancelled: false };
    timers.push(timer);
    timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
    wakeUp?.();
    return () => {
      timer.cancelled = true;
    };
  }

  async function settle() {
    for (;;) {
      // Let promise chains run until they either finish or wait on app time or real I/O.
      await new Promise((resolve) => setImmediate(resolve));
      if (inFlight.size === 0) {
        await new Promise((resolve) => setImmediate(resolve));
        if (inFlight.size === 0) return;
      }
      await Promise.allSettled([...inFlight]);
    }
  }

  /** Waits `ms` of real time, cut short by wake(); says whether it was. */
  async function realPause(ms: number): Promise<boolean> {
    const woken = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), ms);
      wakeUp = () => {
        clearTimeout(timer);
        resolve(true);
      };
    });
    wakeUp = null;
    return woken;
  }

  async function step(limit: number): Promise<boolean> {
    await settle();
    while (timers.length > 0 && timers[0].cancelled) timers.shift();
    const next = timers[0];
    if (!next || next.at > limit) return false;
    if (next.at > now) {
      // A real pause in proportion to the jump: an event already on its way arrives in it.
      if (await realPause(Math.min(maxRealWaitMs, (next.at - now) / speedup))) return true;
      now = next.at;
      await options.onMove?.(new Date(now));
    }
    // Everything due now starts together, as concurrent workers do.
    const due: Timer[] = [];
    while (timers.length > 0 && timers[0].at <= now) {
      const timer = timers.shift()!;
      if (!timer.cancelled) due.push(timer);
    }
    for (const timer of due) timer.run();
    return true;
  }

  const time: AppTime = {
    now: () => now,
    date: () => new Date(now),
    at,
    after: (ms, run) => at(now + ms, run),
    sleep: (ms) => new Promise<void>((resolve) => at(now + ms, resolve)),
    busy<T>(work: Promise<T>) {
      const tracked = work.finally(() => inFlight.delete(tracked));
      inFlight.add(tracked);
      return tracked;
    },
    wake: () => wakeUp?.(),
    async runUntil(done, { within, what }) {
      const limit = now + within;
      for (;;) {
        await settle();
        if (done()) return;
        if (!(await step(limit))) {
          // Nothing left to do within the limit: the last chance is an event from outside.
          if (!(await realPause(maxRealWaitMs)))
            throw new Error(`app time: ${what} did not happen within ${within / 1000} s of app time`);
        }
      }
    },
    async runFor(ms) {
      const until = now + ms;
      while (await step(until));
      if (now < until) {
        now = until;
        await options.onMove?.(new Date(now));
      }
      await settle();
    },
  };
  return time;
}

// androidx.work (WorkManager 2.x, as the app uses it): PeriodicWorkRequest.MIN_PERIODIC_INTERVAL_MILLIS
// is 15 minutes, WorkRequest.MIN_BACKOFF_MILLIS 10 s, MAX_BACKOFF_MILLIS 5 hours; EXPONENTIAL backoff
// doubles from the request's delay, LINEAR adds it. A periodic request runs at once when enqueued,
// then once per interval; a retry of a periodic one waits its backoff and keeps the period after.
export const MIN_PERIODIC_INTERVAL_MS = 15 * 60_000;
export const MIN_BACKOFF_MS = 10_000;
const MAX_BACKOFF_MS = 5 * 3_600_000;

export type WorkResult = 'success' | 'retry' | 'failure';
export type Work = (attempt: number) => Promise<WorkResult>;

export interface WorkOptions {
  backoff?: { policy: 'EXPONENTIAL' | 'LINEAR'; delayMs: number };
}

export function backoffDelay(options: WorkOptions, attempt: number): number {
  const { policy, delayMs } = options.backoff ?? { policy: 'EXPONENTIAL', delayMs: MIN_BACKOFF_MS };
  const delay = policy === 'EXPONENTIAL' ? delayMs * 2 ** (attempt - 1) : delayMs * attempt;
  return Math.min(delay, MAX_BACKOFF_MS);
}

/** The part of WorkManager the app relies on: unique periodic and one-time work, retries. */
export function createWorkManager(time: AppTime) {
  const unique = new Map<string, { cancel: () => void }>();
  const runs: { name: string; at: number; result: WorkResult }[] = [];

  function schedule(name: string, work: Work, options: WorkOptions, periodMs: number | null) {
    let cancelled = false;
    let cancelTimer = () => {};
    let attempt = 0;
    const run = (at: number) => {
      cancelTimer = time.at(at, () => {
        const started = time.now();
        void work(attempt).then(
          (result) => finish(started, result),
          () => finish(started, 'retry'),
        );
      });
    };
    const finish = (started: number, result: WorkResult) => {
      runs.push({ name, at: started, result });
      if (cancelled) return;
      if (result === 'retry') {
        attempt += 1;
        run(time.now() + backoffDelay(options, attempt));
      } else if (periodMs !== null) {
        attempt = 0;
        run(started + periodMs);
      }
    };
    run(time.now());
    return {
      cancel() {
        cancelled = true;
        cancelTimer();
      },
    };
  }

  return {
    runs,
    /** enqueueUniquePeriodicWork(name, ExistingPeriodicWorkPolicy.REPLACE, …): starts over, now. */
    replacePeriodic(name: string, periodMs: number, work: Work, options: WorkOptions = {}) {
      unique.get(name)?.cancel();
      unique.set(name, schedule(name, work, options, Math.max(periodMs, MIN_PERIODIC_INTERVAL_MS)));
    },
    /** enqueueUniqueWork(name, REPLACE | KEEP, OneTimeWorkRequest). */
    uniqueOneTime(name: string, policy: 'REPLACE' | 'KEEP', work: Work, options: WorkOptions = {}) {
      if (policy === 'KEEP' && unique.has(name)) return;
      unique.get(name)?.cancel();
      const entry = schedule(
        name,
        async (attempt) => {
          const result = await work(attempt);
          if (result !== 'retry' && unique.get(name) === entry) unique.delete(name);
          return result;
        },
        options,
        null,
      );
      unique.set(name, entry);
    },
    /** enqueue(OneTimeWorkRequest): not unique. */
    oneTime(name: string, work: Work, options: WorkOptions = {}) {
      schedule(name, work, options, null);
    },
    cancel(name: string) {
      unique.get(name)?.cancel();
      unique.delete(name);
    },
    cancelAll() {
      for (const entry of unique.values()) entry.cancel();
      unique.clear();
    },
  };
}

export type WorkManager = ReturnType<typeof createWorkManager>;
