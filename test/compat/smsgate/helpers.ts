import { expect } from 'vitest';
import { createPairingCode } from '../../devices/helpers';
import { createKey, json, registerAccount } from '../../support/accounts';
import type { TestApp } from '../../support/app';
import { freePort } from '../../support/net';
import { readJson } from '../../support/http';
import { startWorkflowStack, type WorkflowStack } from '../../support/temporal';
import { createFakeApp, type FakeApp, type SimCard } from './fake-app';
import { createAppTime } from './app-time';
import { createSmsGateApp, type AppOptions } from './app-behaviour';

/** The app's "API URL" path on this service (src/compat/smsgate/mobile.routes.ts MOBILE_API). */
export const MOBILE_API = '/compat/smsgate/api/mobile/v1';

/**
 * The api and a worker on the time-skipping server, with PUBLIC_URL the app's own address: the
 * URLs handed to the phone (its webhooks) must reach it.
 */
export async function startSmsGateStack(taskQueue: string, env: Record<string, string> = {}): Promise<WorkflowStack> {
  const port = await freePort();
  return startWorkflowStack({
    port,
    env: { PUBLIC_URL: `http://127.0.0.1:${port}`, TEMPORAL_TASK_QUEUE: taskQueue, ...env },
  });
}

/** A verified account on `plan` with an all-scopes key, and a caller with that key. */
export async function tenant(app: TestApp, plan = 'pro') {
  const account = await registerAccount(app, { verified: true, plan });
  const key = await createKey(app, account);
  const call = (method: string, path: string, body?: unknown) =>
    app.fetch(path, json(method, body, { 'x-api-key': key }));
  return { account, key, call };
}

/** The fake app registered with a fresh pairing code as its private token, its settings loaded. */
export async function registeredApp(
  app: TestApp,
  key: string,
  options: { apiUrl?: string; simCards?: SimCard[] } = {},
): Promise<FakeApp> {
  const phone = createFakeApp({
    apiUrl: options.apiUrl ?? `${app.url}${MOBILE_API}`,
    simCards: options.simCards,
    now: () => app.clock.now(),
    via: { 'X-Forwarded-For': app.clientIp },
  });
  const { code } = await createPairingCode(app, key);
  const res = await phone.register(code);
  expect(res.status).toBe(201);
  phone.state.registration = await readJson(res);
  expect((await phone.getSettings()).status).toBe(200);
  return phone;
}

/**
 * The app as it behaves (app-behaviour.ts), installed as a person sets it up: the API URL the
 * dashboard shows, a pairing code, SSE only; on app time starting at the server's now, which the
 * server's clock then follows. Not started.
 */
export async function installedApp(stack: WorkflowStack, key: string, overrides: Partial<AppOptions> = {}) {
  const { app } = stack;
  app.clock.set(new Date(await stack.env.currentTimeMs()));
  const time = createAppTime({ start: app.clock.now(), onMove: (to) => app.clock.set(to) });
  const { code } = await createPairingCode(app, key);
  const phone = createSmsGateApp({
    time,
    serverUrl: `${app.config.publicUrl}${MOBILE_API}`,
    privateToken: code,
    via: { 'X-Forwarded-For': app.clientIp },
    ...overrides,
  });
  return { phone, time };
}
