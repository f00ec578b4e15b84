import { randomInt } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import type { MikroORM } from '@mikro-orm/postgresql';
import { createApp } from '../../src/app';
import type { Mail, Mailer } from '../../src/accounts/mailer';
import type { Config, Env } from '../../src/config';
import { containerServices } from '../../src/container';
import { openOrm } from '../../src/db/orm';
import type { Clock } from '../../src/lib/clock';
import { createLogger, type Logger } from '../../src/lib/logger';
import type { Services } from '../../src/services';
import type { Tracing } from '../../src/traces/tracing';
import { testConfig } from './config';
import { asBrowser, serve, type Served } from './http';

/** A clock tests move by hand. Starts at the real now unless told otherwise. */
export function testClock(start = new Date()) {
  let now = start.getTime();
  return {
    now: () => new Date(now),
    advance(ms: number) {
      now += ms;
    },
    set(date: Date) {
      now = date.getTime();
    },
  } satisfies Clock & Record<string, unknown>;
}
export type TestClock = ReturnType<typeof testClock>;

/** A mailer that keeps what it was asked to send. */
export function memoryMailer() {
  const sent: Mail[] = [];
  return {
    sent,
    async send(mail: Mail) {
      sent.push(mail);
    },
    /** The six-digit code of the last mail to `to`. */
    lastCode(to: string): string {
      const mail = [...sent].reverse().find((m) => m.to === to);
      const code = mail?.text.match(/\b(\d{6})\b/)?.[1];
      if (!code) throw new Error(`no code mailed to ${to}`);
      return code;
    },
  } satisfies Mailer & Record<string, unknown>;
}

/**
 * The environment of an app a fuzzer drives (test/http/fuzz.test.ts, the Schemathesis runs): no
 * request-rate limit per API key or phone, since a run sends thousands; webhook URLs stored as given,
 * so made-up host names are not looked up (no worker delivers to them).
 */
export const FUZZ_ENV = {
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  API_KEY_RATE_PER_SECOND: '1000000',
  API_KEY_RATE_BURST: '1000000',
  DEVICE_RATE_PER_SECOND: '1000000',
  DEVICE_RATE_BURST: '1000000',
} satisfies Partial<Record<keyof Env, string>>;

export interface TestApp extends Served {
  /** The address the app sees for this test's requests. */
  clientIp: string;
  config: Config;
  orm: MikroORM;
  services: Services;
  clock: TestClock;
  close(): Promise<void>;
}

/**
 * The whole app on a real port, over the shared test database. Temporal is a lazy client unless one
 * is given (no test server is started for routes that do not need one).
 */
export async function startTestApp(
  options: {
    env?: Partial<Record<keyof Env, string>>;
    clock?: TestClock;
    mailer?: Mailer;
    temporal?: Client;
    logger?: Logger;
    /** A fixed port, for tests whose PUBLIC_URL must be the app's own address (Google sign-in). */
    port?: number;
    /** Tracing on (test/traces): request and SQL spans, starts in their request's trace. */
    tracing?: Tracing;
    /** `temporal` shares the connection of a worker in this process (test/temporal/eager-start.test.ts). */
    eagerStart?: boolean;
  } = {},
): Promise<TestApp> {
  // Each test app is its own client address (behind a trusted proxy), so per-IP abuse limits count
  // one test file's requests, not the whole suite's.
  const config = testConfig({ TRUST_PROXY: 'true', ...options.env });
  const clientIp = `10.${randomInt(256)}.${randomInt(256)}.${1 + randomInt(254)}`;
  const { tracing } = options;
  const orm = await openOrm(config.databaseUrl!, undefined, tracing);
  const clock = options.clock ?? testClock();
  const temporal = options.temporal ?? new Client({ connection: Connection.lazy({ address: '127.0.0.1:1' }) });
  const logger = options.logger ?? createLogger('silent');
  const parts = { config, logger, orm, temporal, clock, tracing };
  const services = containerServices(parts, {
    mailer: options.mailer ?? memoryMailer(),
    eagerStart: options.eagerStart,
    // Node's process metrics watch the event loop and GC with observers nothing stops: a real process
    // builds its services once, a test file many times.
    processMetrics: false,
  });
  const served = await serve(createApp({ ...parts, services }), options.port);
  return {
    ...served,
    fetch: (path, init = {}) => {
      // A cookie-carrying change comes from the dashboard's origin, as a browser sends it.
      const headers = asBrowser(init.method, init.headers, new URL(config.publicUrl).origin);
      if (!headers.has('x-forwarded-for')) headers.set('x-forwarded-for', clientIp);
      return served.fetch(path, { ...init, headers });
    },
    clientIp,
    config,
    orm,
    services,
    clock,
    async close() {
      await served.close();
      await services.accounts.mailsSent();
      await services.stop();
      await orm.close();
    },
  };
}
