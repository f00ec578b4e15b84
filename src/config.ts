import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import * as yup from 'yup';
import { parseDuration, parseDurationList } from './lib/duration';
import { bool, duration, flag, int, rate, url } from './config-fields';
import { postgresSsl, PostgresTlsError } from './db/postgres-tls';
import { productionProblems } from './production-settings';

// The only module that reads process.env. Parsed once at start, frozen; a bad value stops the
// process with one line that names the variable.

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export const envSchema = yup.object({
  NODE_ENV: yup.string().oneOf(['development', 'production', 'test']).default('development'),
  PORT: int(3000, 0, 65535),
  PUBLIC_URL: url(['http', 'https']),
  /** In production a PUBLIC_URL that is neither https nor loopback is refused unless this says it is meant. */
  ALLOW_INSECURE_PUBLIC_URL: bool(false),
  DASHBOARD_URL: url(['http', 'https']),
  DATABASE_URL: url(['postgres', 'postgresql']),
  /** Connections per process; each is a Postgres backend with its own memory (about 5 to 10 MiB). */
  DATABASE_POOL_MAX: int(10, 1, 1000),
  DATA_DIR: yup.string().default('.data'),
  EMBEDDED_POSTGRES_PORT: int(54329, 1, 65535),
  TEMPORAL_ADDRESS: yup.string().matches(/^[^\s:]+:\d+$/, '${path} must be host:port'),
  TEMPORAL_NAMESPACE: yup.string().default('default'),
  /** TLS to the frontend; unset: on when any TEMPORAL_TLS_* file or name, or TEMPORAL_API_KEY, is set. */
  TEMPORAL_TLS: flag(),
  /** PEM of the CA that signed the frontend's certificate; unset: the system's roots. */
  TEMPORAL_TLS_CA_FILE: yup.string(),
  /** A client certificate and its key (PEM), for a frontend that requires mTLS: both or neither. */
  TEMPORAL_TLS_CERT_FILE: yup.string(),
  TEMPORAL_TLS_KEY_FILE: yup.string(),
  /** The name the frontend's certificate is checked against, when not the host of TEMPORAL_ADDRESS. */
  TEMPORAL_TLS_SERVER_NAME: yup.string(),
  /** A Temporal Cloud API key (implies TLS). A secret: never logged. */
  TEMPORAL_API_KEY: yup.string(),
  TEMPORAL_TASK_QUEUE: yup.string().default('phone-gateway'),
  /**
   * Workflows the worker keeps in memory between tasks. The SDK's default follows the heap limit
   * (thousands on a large machine), so a burst of batches grew the worker without bound; an evicted
   * workflow is replayed from its short history on its next task.
   */
  TEMPORAL_MAX_CACHED_WORKFLOWS: int(250, 0, 100_000),
  TEMPORAL_DEV_PORT: int(7233, 1, 65535),
  TEMPORAL_UI_PORT: int(8233, 1, 65535),
  PHONE_GATEWAY_CACHE: yup.string(),
  XDG_CACHE_HOME: yup.string(),
  SMTP_URL: url(['smtp', 'smtps']),
  MAIL_FROM: yup.string().default('Phone Gateway <no-reply@localhost>'),
  TURNSTILE_SITE_KEY: yup.string(),
  TURNSTILE_SECRET: yup.string(),
  TURNSTILE_VERIFY_URL: url(['http', 'https']).default('https://challenges.cloudflare.com/turnstile/v0/siteverify'),
  GOOGLE_CLIENT_ID: yup.string(),
  GOOGLE_CLIENT_SECRET: yup.string(),
  GOOGLE_ISSUER: url(['http', 'https']).default('https://accounts.google.com'),
  FCM_PROJECT_ID: yup.string(),
  FCM_CLIENT_EMAIL: yup.string(),
  FCM_PRIVATE_KEY: yup.string(),
  FCM_ENDPOINT: url(['http', 'https']).default('https://fcm.googleapis.com'),
  FCM_TOKEN_URL: url(['http', 'https']).default('https://oauth2.googleapis.com/token'),
  STALE_WINDOW: duration('1h'),
  OFFLINE_AFTER_MISSED_HEARTBEATS: int(2, 1, 100),
  /** How often an open phone event stream carries a heartbeat comment, so proxies keep it open. */
  PHONE_EVENTS_HEARTBEAT: duration('15s'),
  /** Open event streams per phone and per account, in each API process (429 too_many_streams past them). */
  EVENT_STREAMS_PER_DEVICE: int(4, 1, 10_000),
  EVENT_STREAMS_PER_ACCOUNT: int(200, 1, 1_000_000),
  WEBHOOK_RETRY_SCHEDULE: yup
    .string()
    .default('1m,5m,15m,1h,3h,6h,12h,24h')
    .test('durations', '${path} must be a comma list of durations such as 1m,5m,1h', (value) => {
      try {
        parseDurationList(value ?? '');
        return true;
      } catch {
        return false;
      }
    }),
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: bool(false),
  // Unset: on under development (npm start), so a receiver on this machine can be tried without TLS.
  WEBHOOK_ALLOW_LOOPBACK_HTTP: flag(),
  /** Bytes of received MMS attachments each account keeps; past it an attachment is listed, not stored. */
  MMS_ATTACHMENT_QUOTA_BYTES: int(100 * 1024 * 1024, 0, Number.MAX_SAFE_INTEGER),
  /** How long a received MMS attachment's bytes are kept (the message and its list stay). */
  MMS_ATTACHMENT_RETENTION: duration('30d'),
  SECRETS_KEY: yup
    .string()
    .test('key', '${path} must be 32 random bytes, base64 (openssl rand -base64 32)', (value) =>
      value === undefined ? true : Buffer.from(value, 'base64').length === 32,
    ),
  DEFAULT_PLAN: yup.string().default('free'),
  DEFAULT_COUNTRY: yup.string().matches(/^[A-Z]{2}$/, '${path} must be a two-letter country code such as US or GB'),
  TRUST_PROXY: bool(false),
  BODY_LIMIT: yup
    .string()
    .matches(/^\d+(b|kb|mb)$/i, '${path} must be a size such as 1mb')
    .default('1mb'),
  API_KEY_RATE_PER_SECOND: rate(50),
  API_KEY_RATE_BURST: int(100, 1, 1_000_000),
  DEVICE_RATE_PER_SECOND: rate(50),
  DEVICE_RATE_BURST: int(200, 1, 1_000_000),
  LOG_LEVEL: yup
    .string()
    .oneOf([...LOG_LEVELS])
    .default('info'),
  METRICS_PORT: yup
    .string()
    .test(
      'port',
      '${path} must be a port (0-65535) or off',
      (value) => value === undefined || value === 'off' || (/^\d{1,5}$/.test(value) && Number(value) <= 65535),
    ),
  METRICS_HOST: yup.string().default('127.0.0.1'),
  METRICS_TOKEN: yup.string().min(16, '${path} must be at least 16 characters (openssl rand -hex 32)'),
  WORKER_METRICS_ADDRESS: yup
    .string()
    .matches(/^(\[[0-9A-Fa-f:.]+\]|[^\s:[\]]+):\d{1,5}$/, '${path} must be host:port, such as 0.0.0.0:9465'),
  /** OTLP/HTTP collector base URL (spans go to <url>/v1/traces); unset: no tracing at all. */
  OTEL_EXPORTER_OTLP_ENDPOINT: url(['http', 'https']),
  /** service.name of the spans; by default phone-gateway-api, phone-gateway-worker or phone-gateway (npm start). */
  OTEL_SERVICE_NAME: yup.string(),
});

export type Env = yup.InferType<typeof envSchema>;

export class ConfigError extends Error {}

/** A file named by a setting, read at start: one that cannot be read stops the process naming the setting. */
function readSettingFile(variable: string, file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new ConfigError(`Invalid configuration: ${variable}: cannot read ${file} (${reason})`);
  }
}

/**
 * TLS to the Temporal frontend, in the shape Connection.connect and NativeConnection.connect take, with
 * the names of the settings that made it (for a failed connection's message); undefined: plain text.
 */
function temporalTls(env: Env) {
  const settings = (
    [
      'TEMPORAL_TLS_CA_FILE',
      'TEMPORAL_TLS_CERT_FILE',
      'TEMPORAL_TLS_KEY_FILE',
      'TEMPORAL_TLS_SERVER_NAME',
      'TEMPORAL_API_KEY',
    ] as const
  ).filter((name) => env[name] !== undefined);
  if (Boolean(env.TEMPORAL_TLS_CERT_FILE) !== Boolean(env.TEMPORAL_TLS_KEY_FILE)) {
    throw new ConfigError(
      'Invalid configuration: TEMPORAL_TLS_CERT_FILE and TEMPORAL_TLS_KEY_FILE go together (a client certificate and its key): set both or neither',
    );
  }
  if (env.TEMPORAL_TLS === false && settings.length > 0) {
    throw new ConfigError(`Invalid configuration: TEMPORAL_TLS is false but ${settings.join(', ')} need TLS`);
  }
  if (!env.TEMPORAL_TLS && settings.length === 0) return undefined;
  if (!env.TEMPORAL_ADDRESS) {
    // npm start's dev server speaks plain text only.
    throw new ConfigError(
      `Invalid configuration: ${env.TEMPORAL_TLS ? 'TEMPORAL_TLS' : settings.join(', ')} need TEMPORAL_ADDRESS (the dev server npm start runs has no TLS)`,
    );
  }
  return {
    settings: env.TEMPORAL_TLS ? ['TEMPORAL_TLS', ...settings] : settings,
    options: {
      serverRootCACertificate: env.TEMPORAL_TLS_CA_FILE
        ? readSettingFile('TEMPORAL_TLS_CA_FILE', env.TEMPORAL_TLS_CA_FILE)
        : undefined,
      clientCertPair:
        env.TEMPORAL_TLS_CERT_FILE && env.TEMPORAL_TLS_KEY_FILE
          ? {
              crt: readSettingFile('TEMPORAL_TLS_CERT_FILE', env.TEMPORAL_TLS_CERT_FILE),
              key: readSettingFile('TEMPORAL_TLS_KEY_FILE', env.TEMPORAL_TLS_KEY_FILE),
            }
          : undefined,
      serverNameOverride: env.TEMPORAL_TLS_SERVER_NAME,
    },
  };
}

/** What the schema cannot say alone: settings that go together, files they name, production's rules. */
function check(env: Env): void {
  if (env.DATABASE_URL) {
    try {
      postgresSsl(env.DATABASE_URL);
    } catch (error) {
      if (error instanceof PostgresTlsError) throw new ConfigError(`Invalid configuration: ${error.message}`);
      throw error;
    }
  }
  if (env.NODE_ENV === 'production') {
    const problems = productionProblems(env);
    if (problems.length > 0) {
      throw new ConfigError(`Unsafe configuration for production (NODE_ENV=production): ${problems.join('; ')}`);
    }
  }
}

function build(env: Env) {
  const port = env.PORT;
  const publicUrl = (env.PUBLIC_URL ?? `http://localhost:${port}`).replace(/\/+$/, '');
  return {
    env: env.NODE_ENV,
    port,
    publicUrl,
    dashboardUrl: (env.DASHBOARD_URL ?? publicUrl).replace(/\/+$/, ''),
    databaseUrl: env.DATABASE_URL,
    databasePoolMax: env.DATABASE_POOL_MAX,
    dataDir: env.DATA_DIR,
    embeddedPostgresPort: env.EMBEDDED_POSTGRES_PORT,
    temporal: {
      address: env.TEMPORAL_ADDRESS,
      namespace: env.TEMPORAL_NAMESPACE,
      /** TLS to the frontend (undefined: plain text) and the settings that asked for it. */
      tls: temporalTls(env),
      /** A secret (Temporal Cloud): never logged. */
      apiKey: env.TEMPORAL_API_KEY,
      taskQueue: env.TEMPORAL_TASK_QUEUE,
      maxCachedWorkflows: env.TEMPORAL_MAX_CACHED_WORKFLOWS,
      devPort: env.TEMPORAL_DEV_PORT,
      uiPort: env.TEMPORAL_UI_PORT,
      cacheDir: temporalCacheDir(env),
    },
    mail: { smtpUrl: env.SMTP_URL, from: env.MAIL_FROM },
    turnstile: {
      siteKey: env.TURNSTILE_SITE_KEY ?? '',
      secret: env.TURNSTILE_SECRET,
      verifyUrl: env.TURNSTILE_VERIFY_URL,
    },
    google: { clientId: env.GOOGLE_CLIENT_ID, clientSecret: env.GOOGLE_CLIENT_SECRET, issuer: env.GOOGLE_ISSUER },
    fcm: {
      projectId: env.FCM_PROJECT_ID,
      clientEmail: env.FCM_CLIENT_EMAIL,
      privateKey: env.FCM_PRIVATE_KEY,
      endpoint: env.FCM_ENDPOINT,
      tokenUrl: env.FCM_TOKEN_URL,
    },
    staleWindowMs: parseDuration(env.STALE_WINDOW),
    offlineAfterMissedHeartbeats: env.OFFLINE_AFTER_MISSED_HEARTBEATS,
    phoneEventsHeartbeatMs: parseDuration(env.PHONE_EVENTS_HEARTBEAT),
    eventStreams: { perDevice: env.EVENT_STREAMS_PER_DEVICE, perAccount: env.EVENT_STREAMS_PER_ACCOUNT },
    webhooks: {
      retryScheduleMs: parseDurationList(env.WEBHOOK_RETRY_SCHEDULE),
      allowPrivateNetworks: env.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
      allowLoopbackHttp: env.WEBHOOK_ALLOW_LOOPBACK_HTTP ?? env.NODE_ENV === 'development',
    },
    mms: {
      quotaBytes: env.MMS_ATTACHMENT_QUOTA_BYTES,
      retentionMs: parseDuration(env.MMS_ATTACHMENT_RETENTION),
    },
    secretsKey: env.SECRETS_KEY ? Buffer.from(env.SECRETS_KEY, 'base64') : undefined,
    defaultPlan: env.DEFAULT_PLAN,
    defaultCountry: env.DEFAULT_COUNTRY,
    trustProxy: env.TRUST_PROXY,
    bodyLimit: env.BODY_LIMIT,
    rateLimits: {
      key: { perSecond: env.API_KEY_RATE_PER_SECOND, burst: env.API_KEY_RATE_BURST },
      device: { perSecond: env.DEVICE_RATE_PER_SECOND, burst: env.DEVICE_RATE_BURST },
    },
    logLevel: env.LOG_LEVEL,
    metrics: {
      // Its own listener for GET /metrics; null: none. `npm start` listens on 9464 unless told otherwise.
      port: metricsPort(env.METRICS_PORT, null),
      startCommandPort: metricsPort(env.METRICS_PORT, DEV_METRICS_PORT),
      host: env.METRICS_HOST,
      // Set: GET /metrics is also served on the API port, and every /metrics needs it as a bearer token.
      token: env.METRICS_TOKEN,
      // The worker's Temporal SDK metrics (Prometheus, served by the SDK's core) listen here when set.
      workerAddress: env.WORKER_METRICS_ADDRESS,
    },
    traces: {
      // The OTLP convention: the generic endpoint is a base URL and traces have their own path.
      endpoint: env.OTEL_EXPORTER_OTLP_ENDPOINT
        ? `${env.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces`
        : undefined,
      serviceName: env.OTEL_SERVICE_NAME,
    },
  };
}

/** Where `npm start` serves /metrics when METRICS_PORT is unset (Prometheus's range for exporters). */
export const DEV_METRICS_PORT = 9464;

function metricsPort(value: string | undefined, fallback: number | null): number | null {
  if (value === undefined) return fallback;
  return value === 'off' ? null : Number(value);
}

export type Config = Readonly<ReturnType<typeof build>>;

/**
 * Where temporal/install.sh installs the pinned Temporal CLI and test server: outside the repo, shared
 * by every clone. Also read on its own (process.env by default) by tests and tools that need the
 * servers without a full configuration.
 */
export function temporalCacheDir(
  source: { PHONE_GATEWAY_CACHE?: string; XDG_CACHE_HOME?: string } = process.env,
): string {
  return (
    source.PHONE_GATEWAY_CACHE || path.join(source.XDG_CACHE_HOME || path.join(homedir(), '.cache'), 'phone-gateway')
  );
}

function deepFreeze<T>(value: T): T {
  // Keys are Buffers, which cannot be frozen; they are never handed out for writing.
  if (value && typeof value === 'object' && !ArrayBuffer.isView(value)) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/** Parses an environment (process.env by default). Throws ConfigError with one line naming the variable. */
export function loadConfig(
  source: Record<string, string | undefined> = process.env,
  overrides: Partial<Record<keyof Env, string>> = {},
): Config {
  const raw: Record<string, string | undefined> = {};
  for (const key of Object.keys(envSchema.fields)) {
    const value = overrides[key as keyof Env] ?? source[key];
    // An empty variable means unset, so `FOO=` in a compose file falls back to the default.
    raw[key] = value === '' ? undefined : value;
  }
  try {
    const env = envSchema.validateSync(raw, { abortEarly: true, stripUnknown: true });
    check(env);
    return deepFreeze(build(env));
  } catch (error) {
    if (error instanceof yup.ValidationError) {
      // The value itself is not echoed: it may be a secret.
      throw new ConfigError(`Invalid configuration: ${error.path ?? 'environment'}: ${error.errors[0]}`);
    }
    throw error;
  }
}

/** For entry points: the config, or one clear line on stderr and exit code 78 (EX_CONFIG). */
export function loadConfigOrExit(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(78);
    }
    throw error;
  }
}
