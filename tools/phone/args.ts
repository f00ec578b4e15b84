import path from 'node:path';
import { parseArgs } from 'node:util';
import { parsePairUrl } from './api';

export const USAGE = `Simulated phone(s) for phone-gateway, speaking only the public /v1/device API.

Usage:
  npm run phone -- --code ABCD2345 [--server http://localhost:3000] [options]
  npm run phone -- --pair-url 'phonegateway://pair?code=ABCD2345&server=http%3A%2F%2Flocalhost%3A3000'
  npm run phone -- --phones 5 --api-key sk_... [--server ...]     (creates a pairing code per phone)
  npm run phone -- --codes CODE1,CODE2,CODE3 [--server ...]

Pairing:
  --server URL                        service address (default http://localhost:$PORT or :3000, or the pair URL's)
  --code CODE                         a pairing code (one phone)
  --pair-url URL                      the pair_url of a pairing code (one phone)
  --codes A,B,C                       one code per phone
  --api-key KEY                       an API key with scope devices: codes are created for each phone
  --phones N                          number of phones (default 1, or the number of --codes)
  --hardware-key KEY                  stable handset key (with N phones: KEY-1 … KEY-N); random by default
  --name NAME                         device name (with N phones: NAME 1 … NAME N)
  --print-token                       print each device token once at pairing
  --state-dir DIR                     where each phone keeps what it sent but has not reported, one file per
                                      hardware key (default .data/phone): a phone killed and started again
                                      with the same --hardware-key sends none of it again

Behaviour:
  --heartbeat-seconds S               heartbeat every S seconds (default: the device's heartbeat_interval_minutes)
  --poll-seconds S                    without the live channel, fetch the outbox every S seconds (default 5)
  --no-live                           do not open the live channel (GET /v1/device/events); poll only
  --settings-seconds S                re-read settings with GET /v1/device every S seconds (default 30)
  --sent-after-ms MS                  report "sent" MS after picking a message up (default 500)
  --delivered-after-ms MS             report "delivered" MS after "sent" (default 2000)
  --failure-ratio R                   report this share (0..1) of messages "failed" (default 0)
  --inbound "+15551234567 text"       forward a received text after pairing (repeatable; every phone forwards it)
  --stop-heartbeats-after-seconds S   stop heartbeating after S seconds (the service marks the phone offline)

Each message is sent once, ever: reports that cannot reach the service wait in a queue and are retried
with backoff, and a message handed out again is reported again, not sent again, also after a crash
(the phone's file in --state-dir remembers it).

Ctrl-C stops every phone and exits.`;

export interface CliOptions {
  server: string;
  /** One pairing code per phone; empty when they are created with apiKey. */
  codes: string[];
  apiKey?: string;
  phones: number;
  hardwareKey?: string;
  name?: string;
  printToken: boolean;
  stateDir: string;
  heartbeatSeconds?: number;
  pollSeconds: number;
  live: boolean;
  settingsSeconds: number;
  sentAfterMs: number;
  deliveredAfterMs: number;
  failureRatio: number;
  inbound: Array<{ sender: string; text: string }>;
  stopHeartbeatsAfterSeconds?: number;
}

export class UsageError extends Error {}

function number(name: string, raw: string | undefined, min: number, max = Number.MAX_SAFE_INTEGER) {
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(value) || value < min || value > max) {
    throw new UsageError(
      `--${name} must be a number from ${min}${max === Number.MAX_SAFE_INTEGER ? '' : ` to ${max}`}`,
    );
  }
  return value;
}

/**
 * The command line, checked; null for --help. Throws UsageError with one line naming the option.
 * Without --server or a pair URL, the service is `npm start`'s on this machine: its PORT, else 3000.
 */
export function parseCli(argv: string[], env: NodeJS.ProcessEnv = process.env): CliOptions | null {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        help: { type: 'boolean', short: 'h' },
        server: { type: 'string' },
        code: { type: 'string' },
        'pair-url': { type: 'string' },
        codes: { type: 'string' },
        'api-key': { type: 'string' },
        phones: { type: 'string' },
        'hardware-key': { type: 'string' },
        name: { type: 'string' },
        'print-token': { type: 'boolean' },
        'state-dir': { type: 'string' },
        'heartbeat-seconds': { type: 'string' },
        'poll-seconds': { type: 'string' },
        'no-live': { type: 'boolean' },
        'settings-seconds': { type: 'string' },
        'sent-after-ms': { type: 'string' },
        'delivered-after-ms': { type: 'string' },
        'failure-ratio': { type: 'string' },
        inbound: { type: 'string', multiple: true },
        'stop-heartbeats-after-seconds': { type: 'string' },
      },
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.help) return null;

  const sources = (['code', 'pair-url', 'codes', 'api-key'] as const).filter((name) => values[name] !== undefined);
  if (sources.length !== 1) throw new UsageError('give exactly one of --code, --pair-url, --codes or --api-key');

  let server = values.server;
  let codes: string[] = [];
  if (values.code !== undefined) codes = [values.code];
  if (values.codes !== undefined)
    codes = values.codes
      .split(',')
      .map((code) => code.trim())
      .filter(Boolean);
  if (values['pair-url'] !== undefined) {
    let pair;
    try {
      pair = parsePairUrl(values['pair-url']);
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    codes = [pair.code];
    server ??= pair.server;
  }
  server ??= `http://localhost:${/^\d{1,5}$/.test(env.PORT ?? '') ? env.PORT : 3000}`;
  try {
    if (!['http:', 'https:'].includes(new URL(server).protocol)) throw new Error();
  } catch {
    throw new UsageError('--server must be an http(s) URL such as http://localhost:3000');
  }

  const phones = number('phones', values.phones, 1, 1000) ?? (values['api-key'] ? 1 : codes.length);
  if (!Number.isInteger(phones)) throw new UsageError('--phones must be a whole number');
  if (!values['api-key'] && codes.length !== phones) {
    throw new UsageError(`--phones ${phones} needs ${phones} pairing codes (--codes A,B,…) or --api-key`);
  }

  const inbound = (values.inbound ?? []).map((spec) => {
    const match = /^\s*(\S+)\s+([\s\S]+)$/.exec(spec);
    if (!match) throw new UsageError(`--inbound must be "<sender> <text>", got "${spec}"`);
    return { sender: match[1], text: match[2] };
  });

  return {
    server: server.replace(/\/+$/, ''),
    codes,
    apiKey: values['api-key'],
    phones,
    hardwareKey: values['hardware-key'],
    name: values.name,
    printToken: values['print-token'] ?? false,
    stateDir: values['state-dir'] ?? path.join('.data', 'phone'),
    heartbeatSeconds: number('heartbeat-seconds', values['heartbeat-seconds'], 1),
    pollSeconds: number('poll-seconds', values['poll-seconds'], 0.1) ?? 5,
    live: !values['no-live'],
    settingsSeconds: number('settings-seconds', values['settings-seconds'], 1) ?? 30,
    sentAfterMs: number('sent-after-ms', values['sent-after-ms'], 0) ?? 500,
    deliveredAfterMs: number('delivered-after-ms', values['delivered-after-ms'], 0) ?? 2000,
    failureRatio: number('failure-ratio', values['failure-ratio'], 0, 1) ?? 0,
    inbound,
    stopHeartbeatsAfterSeconds: number('stop-heartbeats-after-seconds', values['stop-heartbeats-after-seconds'], 0),
  };
}
