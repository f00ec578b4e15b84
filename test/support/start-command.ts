import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { json, PASSWORD, sessionCookie, uniqueEmail } from './accounts';
import { readJson } from './http';
import { freePort } from './net';
import { startCommand } from './start-script';

const root = path.resolve(__dirname, '..', '..');

export interface StartPorts {
  api: number;
  pg: number;
  temporal: number;
  ui: number;
  metrics: number;
}

/** A free loopback port for each server `npm start` runs. */
export async function freeStartPorts(): Promise<StartPorts> {
  return {
    api: await freePort(),
    pg: await freePort(),
    temporal: await freePort(),
    ui: await freePort(),
    metrics: await freePort(),
  };
}

/**
 * `npm start` (its start script, compiled by the global setup's `buildStart`) as a child process on `dataDir` and `ports`, logging warnings and
 * worse: our PATH, home and caches (the Postgres and Temporal binaries), the tests' CA (so its
 * worker trusts a local HTTPS receiver), and `env`.
 */
export function spawnStart(
  { dataDir, ports }: { dataDir: string; ports: StartPorts },
  env: Record<string, string> = {},
): { child: ChildProcess; output: () => string } {
  const { command, args, env: startEnv } = startCommand();
  const child = spawn(command, args, {
    cwd: root,
    env: {
      ...startEnv,
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      PHONE_GATEWAY_CACHE: process.env.PHONE_GATEWAY_CACHE,
      XDG_CACHE_HOME: process.env.XDG_CACHE_HOME,
      NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS,
      PORT: String(ports.api),
      DATA_DIR: dataDir,
      EMBEDDED_POSTGRES_PORT: String(ports.pg),
      TEMPORAL_DEV_PORT: String(ports.temporal),
      TEMPORAL_UI_PORT: String(ports.ui),
      METRICS_PORT: String(ports.metrics),
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  return { child, output: () => output };
}

/** The first 200 answer from `url`; fails when the child exits first or the time is up. */
export async function waitFor(url: string, child: ChildProcess, timeoutMs: number): Promise<Response> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}`);
    try {
      const res = await fetch(url);
      if (res.status === 200) return res;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer 200 within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** The child's exit code, once it has exited. */
export function exited(child: ChildProcess): Promise<number | null> {
  return child.exitCode !== null
    ? Promise.resolve(child.exitCode)
    : new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/**
 * An account signed up on a started service, verified with the code its log shows (without
 * SMTP_URL the mail is written to the log: src/accounts/mailer.ts), and an API key of it.
 */
export async function signUpFromLog(
  publicUrl: string,
  output: () => string,
  name: string,
): Promise<{ email: string; cookie: string; key: string }> {
  // Loaded here: web/scripts/screenshots.ts uses this file's stack outside vitest, which refuses to
  // be required there.
  const { expect } = await import('vitest');
  const api = (pathname: string, init: RequestInit) => fetch(`${publicUrl}${pathname}`, init);
  const email = uniqueEmail(name);
  const registered = await api('/v1/auth/register', json('POST', { email, password: PASSWORD }));
  expect(registered.status).toBe(201);
  const cookie = sessionCookie(registered);
  const mailed = new RegExp(`"mail_to":"${email}".*Your verification code is (\\d{6})`);
  await expect.poll(() => mailed.test(output())).toBe(true);
  const verified = await api('/v1/auth/verify-email', json('POST', { code: output().match(mailed)![1] }, { cookie }));
  expect(verified.status).toBe(200);
  const keyRes = await api('/v1/api-keys', json('POST', { name: 'integration' }, { cookie }));
  expect(keyRes.status).toBe(201);
  const { key } = await readJson(keyRes);
  return { email, cookie, key };
}
