/// <reference lib="dom" />
import { existsSync, readFileSync } from 'node:fs';
import { execFileSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import {
  chromium,
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  type Locator,
  type Page,
} from 'playwright-core';
import type { Mailer } from '../../src/accounts/mailer';
import { PASSWORD, registerAccount, sessionCookie, type Account } from '../support/accounts';
import type { TestApp } from '../support/app';
import { freePort } from '../support/net';
import { freeStartPorts, spawnStart } from '../support/start-command';
import { startSmtpServer } from '../support/smtp';
import { SimulatedPhone } from '../../tools/phone/phone';

export const root = path.resolve(__dirname, '..', '..');

/** Screenshots to look at while working on a screen (never committed, never written to docs/). */
export const CHECK_SHOTS = path.join(root, '.test-data', 'dashboard-shots');

export async function checkShot(page: Page, name: string): Promise<void> {
  mkdirSync(CHECK_SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(CHECK_SHOTS, `${name}.png`), fullPage: true });
}

// Debian's chromium where it is installed (this machine, CI via .ci/run); elsewhere Playwright's own.
const SYSTEM_CHROMIUM = '/usr/bin/chromium';
// Without the background-networking flags Chromium keeps calling Google's hosts, which a closed
// network refuses; none of them changes what a page does.
const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    headless: true,
    executablePath: existsSync(SYSTEM_CHROMIUM) ? SYSTEM_CHROMIUM : undefined,
    args: FLAGS,
  });
}

/** Console errors and uncaught exceptions of every page in a context. */
export function watchConsole(context: BrowserContext): string[] {
  const errors: string[] = [];
  const watch = (page: Page) => {
    page.on('pageerror', (error) => errors.push(`${page.url()}: uncaught ${error.message}`));
    page.on('console', (message) => {
      // The browser's own line for a 4xx answer is not a page error: the error states under test
      // are made of those answers (401 before signing in, 422 for a bad form) and are checked on screen.
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) {
        errors.push(`${page.url()}: ${message.text()}`);
      }
    });
  };
  context.pages().forEach(watch);
  context.on('page', watch);
  return errors;
}

const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/** axe-core in the page: the serious and critical WCAG 2.1 A/AA violations of what is on screen. */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ content: AXE_SOURCE });
  // A dialog still fading in or out is half transparent, and axe would judge its contrast mid-way
  // (on a loaded machine the fades outlast the steps before): wait for every finite transition.
  await page.evaluate(() =>
    Promise.all(
      document
        .getAnimations()
        .filter((animation) => animation.effect?.getComputedTiming().endTime !== Infinity)
        .map((animation) => animation.finished.catch(() => undefined)),
    ),
  );
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(ctx: unknown, opts: unknown): Promise<{ violations: unknown[] }> } })
      .axe;
    const result = await axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
    });
    return result.violations as Array<{
      id: string;
      impact: string | null;
      help: string;
      nodes: Array<{ target: unknown[]; failureSummary?: string }>;
    }>;
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      // Where, and axe's reason (for contrast: both colours and the ratio), so a failure explains itself.
      nodes: v.nodes.map((n) => `${n.target.join(' ')}: ${n.failureSummary?.replace(/\s+/g, ' ').trim() ?? ''}`),
    }));
}

/** The dashboard's build in web/dist, made afresh when web/ changed (npm start's prestart step). */
export function buildDashboard(): void {
  execFileSync(process.execPath, ['--import', 'tsx', 'web/scripts/build.ts', '--if-stale'], {
    cwd: root,
    stdio: 'pipe',
  });
}

/**
 * The API alone (real Postgres; Temporal only when a screen under test starts a workflow) serving the
 * dashboard's fresh build, on a port that is its PUBLIC_URL: signed-in writes from any other origin
 * are refused.
 */
export async function startDashboardApp(options: { mailer?: Mailer } = {}): Promise<TestApp> {
  // Loaded here: the test app reads vitest's shared setup, which web/scripts/screenshots.ts (using
  // this file's stack and browser outside vitest) does not have.
  const { startTestApp } = await import('../support/app.js');
  buildDashboard();
  const port = await freePort();
  return startTestApp({ port, mailer: options.mailer, env: { PUBLIC_URL: `http://127.0.0.1:${port}` } });
}

/** The test app with one verified account, and a browser: what the files on the test app share. */
export interface AppScene {
  app: TestApp;
  account: Account;
  browser: Browser;
  /** Closes the contexts opened on it, the browser and the app. */
  close(): Promise<void>;
}

export async function startAppScene(
  contexts: Contexts,
  options: { mailer?: Mailer; plan?: string } = {},
): Promise<AppScene> {
  const app = await startDashboardApp({ mailer: options.mailer });
  const account = await registerAccount(app, { verified: true, plan: options.plan });
  const browser = await launchBrowser();
  return {
    app,
    account,
    browser,
    async close() {
      await contexts.close();
      await browser.close();
      await app.close();
    },
  };
}

/** Context options for the app, as its own client address (per-IP limits count this file only). */
export function onApp(app: TestApp, options: BrowserContextOptions = {}): BrowserContextOptions {
  return {
    baseURL: app.url,
    viewport: { width: 1280, height: 900 },
    extraHTTPHeaders: { 'x-forwarded-for': app.clientIp },
    ...options,
  };
}

/** The signed-in screens, in the navigation's order. */
export const SCREENS = [
  '/',
  '/phones',
  '/send',
  '/templates',
  '/batches',
  '/messages',
  '/inbox',
  '/webhooks',
  '/opt-outs',
  '/api-keys',
  '/account',
];

/** Waits for the first match to be on screen. */
export const shown = (locator: Locator, timeout = 15_000) => locator.first().waitFor({ state: 'visible', timeout });

/** The browser contexts a test file opens and their console errors; close() ends them all. */
export class Contexts {
  private readonly opened: BrowserContext[] = [];
  private readonly errors: string[][] = [];
  constructor(private readonly browser: () => Browser) {}

  async page(options: BrowserContextOptions = {}): Promise<Page> {
    const context = await this.browser().newContext(options);
    this.opened.push(context);
    this.errors.push(watchConsole(context));
    return context.newPage();
  }

  consoleErrors(): string[] {
    return this.errors.flat();
  }

  async close(): Promise<void> {
    for (const context of this.opened) await context.close().catch(() => undefined);
  }
}

/** Opens sign-in on the page, signs in and waits for the Overview. */
export async function signInOn(page: Page, email: string, password: string): Promise<Page> {
  await page.goto('/sign-in');
  await submitSignIn(page, email, password);
  await shown(page.getByRole('heading', { name: 'Overview' }));
  return page;
}

/** Fills and submits the sign-in form of the page. */
export async function submitSignIn(page: Page, email: string, password: string): Promise<void> {
  await page.getByLabel('Email').fill(email);
  await page.getByRole('textbox', { name: 'Password', exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

/**
 * An account on the stack, verified with the code it mailed, and an all-scopes API key of it: set up
 * through the API, as a script would. Its password is PASSWORD.
 */
export async function verifiedAccountKey(stack: Stack, email: string): Promise<string> {
  const registered = await fetch(`${stack.base}/v1/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: PASSWORD }),
  });
  const cookie = sessionCookie(registered);
  const asUser = async (path: string, body: unknown) => {
    const res = await fetch(`${stack.base}${path}`, {
      method: 'POST',
      headers: { cookie, origin: new URL(stack.base).origin, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return res.json() as Promise<Record<string, unknown>>;
  };
  await asUser('/v1/auth/verify-email', { code: await stack.smtp.codeFor(email, 15_000) });
  return (await asUser('/v1/api-keys', { name: 'browser test' })).key as string;
}

function exited(child: ChildProcess, timeoutMs = 60_000): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`start command still running after ${timeoutMs} ms`)), timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

export interface Stack {
  /** PUBLIC_URL, where the browser opens the dashboard. */
  base: string;
  /**
   * The same server under another name (DASHBOARD_URL, so signed-in requests pass the Origin check):
   * a page opened here shows what the server builds from PUBLIC_URL apart from the browser's address.
   */
  otherOrigin: string;
  smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  output(): string;
  stop(): Promise<void>;
}

/**
 * What `npm start` runs, as a person would: the dashboard built if stale (the prestart step), then
 * embedded Postgres, the Temporal dev server, api and worker on free ports with a temporary data
 * folder, mail going to a local SMTP server.
 */
export async function startStack(label: string, env: Record<string, string> = {}): Promise<Stack> {
  buildDashboard();
  const dataDir = path.join(root, '.test-data', `${label}-${process.pid}`);
  rmSync(dataDir, { recursive: true, force: true });
  mkdirSync(dataDir, { recursive: true });
  const smtp = await startSmtpServer();
  const port = await freePort();
  // The browser opens this exact origin, so cookie-authenticated requests pass the Origin check.
  const base = `http://127.0.0.1:${port}`;
  const otherOrigin = `http://localhost:${port}`;
  const { child, output } = spawnStart(
    { dataDir, ports: { ...(await freeStartPorts()), api: port } },
    {
      PUBLIC_URL: base,
      DASHBOARD_URL: otherOrigin,
      // Off: nothing here reads this stack's metrics.
      METRICS_PORT: 'off',
      SMTP_URL: smtp.url,
      ...env,
    },
  );
  const stop = async () => {
    if (child.exitCode === null) {
      // SIGTERM first: a SIGKILL would orphan the embedded Postgres and the dev server.
      child.kill('SIGTERM');
      await exited(child).catch(() => child.kill('SIGKILL'));
    }
    await smtp.close();
    rmSync(dataDir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 150_000;
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`start command exited with ${child.exitCode}\n${output()}`);
    }
    const res = await fetch(`${base}/readyz`).catch(() => undefined);
    if (res?.status === 200) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`the stack was not ready after 150 s\n${output()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return { base, otherOrigin, smtp, output, stop };
}

export interface SceneOptions {
  viewport?: { width: number; height: number };
  colorScheme?: 'light' | 'dark';
}

/**
 * What most dashboard files need, set up once: the `npm start` stack, a browser, a verified account
 * with an all-scopes API key, simulated phones paired to it (speaking the public /v1/device API) and
 * pages signed in to it. stop() ends them all.
 */
export interface Scene {
  stack: Stack;
  email: string;
  key: string;
  contexts: Contexts;
  /** The API with the account's key; throws on any answer but 2xx. */
  call(method: string, path: string, body?: unknown): Promise<any>;
  /** A simulated phone paired with a code from the API, running. */
  pair(name: string, options?: { failureRatio?: number; deliveredAfterMs?: number }): Promise<SimulatedPhone>;
  /** A batch's messages once each has reached `status`. */
  reached(batchId: string, status: string): Promise<Array<{ id: string; status: string }>>;
  /** A new browser context signed in to the account, on the Overview. */
  signedIn(options?: SceneOptions): Promise<Page>;
  stop(): Promise<void>;
}

export async function startScene(label: string, env: Record<string, string> = {}): Promise<Scene> {
  const stack = await startStack(label, env);
  const browser = await launchBrowser();
  const contexts = new Contexts(() => browser);
  const email = `${label}-${process.pid}-${Date.now().toString(36)}@example.test`;
  const key = await verifiedAccountKey(stack, email);
  const phones: SimulatedPhone[] = [];
  const call: Scene['call'] = async (method, path, body) => {
    const res = await fetch(`${stack.base}${path}`, {
      method,
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return res.status === 204 ? undefined : res.json();
  };
  return {
    stack,
    email,
    key,
    contexts,
    call,
    async pair(name, { failureRatio = 0, deliveredAfterMs = 300 } = {}) {
      const { code } = await call('POST', '/v1/devices/pairing-codes', {});
      const phone = new SimulatedPhone({
        server: stack.base,
        code,
        name,
        heartbeatSeconds: 15,
        pollSeconds: 1,
        settingsSeconds: 1,
        sentAfterMs: 100,
        deliveredAfterMs,
        failureRatio,
        log: () => undefined,
      });
      phones.push(phone);
      await phone.start();
      return phone;
    },
    async reached(batchId, status) {
      const messages = async () =>
        (await call('GET', `/v1/batches/${batchId}`)).messages as Array<{ id: string; status: string }>;
      const deadline = Date.now() + 60_000;
      while (!(await messages()).every((m) => m.status === status)) {
        if (Date.now() > deadline) throw new Error(`batch ${batchId} did not reach ${status} in 60 s`);
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      return messages();
    },
    async signedIn({ viewport = { width: 1280, height: 900 }, colorScheme = 'light' } = {}) {
      const page = await contexts.page({ baseURL: stack.base, viewport, colorScheme, locale: 'en-US' });
      return signInOn(page, email, PASSWORD);
    },
    async stop() {
      for (const phone of phones) await phone.stop();
      await contexts.close();
      await browser.close();
      await stack.stop();
    },
  };
}
