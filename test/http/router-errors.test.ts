import type Router from '@koa/router';
import type Koa from 'koa';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app';
import { createLogger } from '../../src/lib/logger';
import { smsgateSignature } from '../../src/webhooks/signature';
import { FUZZ_ENV, startTestApp, type TestApp } from '../support/app';
import { createKey, registerAccount, type Account } from '../support/accounts';
import { isErrorBody, readJson } from '../support/http';
import { createTimeSkippingEnv } from '../support/temporal';
import { pairPhone, type PairedPhone } from '../devices/helpers';
import { registeredApp } from '../compat/smsgate/helpers';
import { INTEGRATOR_API } from '../compat/smsgate/integrator-client';
import type { FakeApp } from '../compat/smsgate/fake-app';

// The error-shape rule of each API, over every error its routes can give. The routes are the app's
// own routers' (every layer of every router createApp mounts), not a list kept here; each gets the
// requests that draw each kind of refusal a route can make: no credentials, wrong credentials, a
// key without the scope, an id that names nothing, a method it lacks, a body that is not JSON, one
// that fails validation, one over the size limit, and on /v1 a cookie from a foreign origin. Every
// answer >= 400 must be in its API's shape, and each API must have shown every kind of refusal.

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';
const METHODS = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'];
const BODY_LIMIT = 2048;

type Api = 'v1' | 'drop-in' | 'mobile' | 'phone webhook';

/** Which API a path belongs to (anything else, health, the document, the dashboard, is none). */
function apiOf(path: string): Api | null {
  if (path.startsWith('/v1/')) return 'v1';
  if (path.startsWith(`${INTEGRATOR_API}/`)) return 'drop-in';
  if (path.startsWith('/compat/smsgate/api/mobile/v1/')) return 'mobile';
  if (path.startsWith('/compat/smsgate/webhooks/')) return 'phone webhook';
  return null;
}

interface Route {
  api: Api;
  /** The pattern as the router has it: /v1/devices/:id. */
  pattern: string;
  /** The methods of every layer with this pattern. */
  methods: Set<string>;
  params: boolean;
}

/** Every route of every router the app mounts, by pattern. */
function routesOf(app: Koa): Route[] {
  const routers = app.middleware
    .map((middleware) => (middleware as { router?: Router }).router)
    .filter((router): router is Router => router !== undefined);
  const routes = new Map<string, Route>();
  for (const layer of routers.flatMap((router) => router.stack)) {
    const pattern = String(layer.path);
    const api = apiOf(pattern);
    if (!api || layer.methods.length === 0) continue;
    const route = routes.get(pattern) ?? { api, pattern, methods: new Set(), params: layer.paramNames.length > 0 };
    for (const method of layer.methods) route.methods.add(method);
    routes.set(pattern, route);
  }
  return [...routes.values()];
}

/** The pattern with each parameter naming nothing, and a catch-all `*rest` a path nobody serves. */
const concrete = (pattern: string, id = UNKNOWN_ID) => pattern.replace(/\*\w+/g, 'nothing/here').replace(/:\w+/g, id);

/** The pattern as /v1/openapi.json writes it: /v1/devices/{id}. */
const documented = (pattern: string) => pattern.replace(/:(\w+)/g, '{$1}');

interface Probe {
  label: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

interface Answer {
  label: string;
  status: number;
  body: unknown;
}

/** The interface's error body: {code, message, status, errors?}, status as answered. */
const ourShape = (answer: Answer) => isErrorBody(answer.body, answer.status);

/** SMSGate's: {message, data: {code, errors?}}. */
function theirShape(answer: Answer): boolean {
  const { message, data, ...rest } = (answer.body ?? {}) as Record<string, unknown>;
  const { code, errors, ...more } = (data ?? {}) as Record<string, unknown>;
  return (
    typeof message === 'string' &&
    typeof code === 'string' &&
    Object.keys(rest).length === 0 &&
    Object.keys(more).length === 0 &&
    (errors === undefined || (Array.isArray(errors) && errors.every((e) => typeof e?.field === 'string')))
  );
}

describe('every error of every route, in its API’s shape', () => {
  let env: TestWorkflowEnvironment;
  let app: TestApp;
  let routes: Route[];
  let account: Account;
  let key: string;
  let readKey: string;
  let sendKey: string;
  let phone: PairedPhone;
  let smsgatePhone: FakeApp;
  /** Per /v1 operation (`METHOD /v1/x/{id}`): the security schemes it takes, and whether it takes a body. */
  const security = new Map<string, string[]>();
  const documentedBodies = new Set<string>();

  beforeAll(async () => {
    // A Temporal server, so the health routes answer at once (ready) rather than after its timeouts.
    env = await createTimeSkippingEnv();
    app = await startTestApp({
      temporal: env.client,
      env: { ...FUZZ_ENV, BODY_LIMIT: `${BODY_LIMIT}b` },
    });
    // The app's routers, read from an app built as main.ts builds it (not served: only its layers are read).
    routes = routesOf(
      createApp({
        config: app.config,
        logger: createLogger('silent'),
        orm: app.orm,
        temporal: env.client,
        services: app.services,
      }),
    );
    account = await registerAccount(app, { verified: true, plan: 'business' });
    key = await createKey(app, account);
    readKey = await createKey(app, account, ['read']);
    sendKey = await createKey(app, account, ['send']);
    phone = await pairPhone(app, key);
    smsgatePhone = await registeredApp(app, key);
    const document = await readJson(await app.fetch('/v1/openapi.json'));
    const operations = document.paths as Record<string, Record<string, { security?: object[]; requestBody?: unknown }>>;
    for (const [path, methods] of Object.entries(operations)) {
      for (const [method, op] of Object.entries(methods)) {
        const name = `${method.toUpperCase()} ${path}`;
        security.set(
          name,
          (op.security ?? []).flatMap((alternative) => Object.keys(alternative)),
        );
        if (op.requestBody) documentedBodies.add(name);
      }
    }
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await env?.teardown();
  });

  /** The credentials a route of `api` takes, right, wrong, and (for API keys) lacking a scope. */
  type Headers = Record<string, string>;
  function credentials(
    api: Api,
    method: string,
    pattern: string,
  ): { right: Headers; wrong: Headers; scoped: Headers[] } {
    const schemes =
      api === 'v1'
        ? (security.get(`${method} ${documented(pattern)}`) ?? ['session'])
        : api === 'drop-in'
          ? ['basic']
          : ['deviceToken'];
    const basic = (secret: string) => ({
      authorization: `Basic ${Buffer.from(`integrator:${secret}`).toString('base64')}`,
    });
    if (schemes.includes('deviceToken')) {
      const token = api === 'v1' ? phone.token : smsgatePhone.state.registration!.token;
      return {
        right: { authorization: `Bearer ${token}` },
        wrong: { authorization: 'Bearer not-a-token' },
        scoped: [],
      };
    }
    if (schemes.includes('apiKey')) {
      return {
        right: { 'x-api-key': key },
        wrong: { 'x-api-key': 'sk_not_a_key' },
        scoped: [readKey, sendKey].map((k) => ({ 'x-api-key': k })),
      };
    }
    if (schemes.includes('basic')) {
      return { right: basic(key), wrong: basic('sk_not_a_key'), scoped: [readKey, sendKey].map(basic) };
    }
    if (schemes.includes('session'))
      return { right: { cookie: account.cookie }, wrong: { cookie: 'sid=not-a-session' }, scoped: [] };
    return { right: {}, wrong: {}, scoped: [] };
  }

  /** Whether a request with `{}` is a change it is safe to make with this run's own credentials. */
  function takesBody(route: Route, method: string): boolean {
    if (!['POST', 'PATCH', 'PUT'].includes(method)) return false;
    // /v1 says which operations take a body; `{}` to one that takes none may do it (logout).
    if (route.api === 'v1') return documentedBodies.has(`${method} ${documented(route.pattern)}`);
    return true;
  }

  /** Every request that draws a refusal from `route`, for each method it has and one it lacks. */
  function probes(route: Route): Probe[] {
    const list: Probe[] = [];
    const path = concrete(
      route.pattern,
      route.api === 'phone webhook' ? smsgatePhone.state.registration!.id : UNKNOWN_ID,
    );
    const sign = (raw: string) =>
      route.api === 'phone webhook'
        ? smsgateSignature(smsgatePhone.state.signingKey!, raw, Math.floor(app.clock.now().getTime() / 1000))
        : {};
    const json = { 'content-type': 'application/json' };
    for (const method of METHODS.filter((m) => route.methods.has(m))) {
      const { right, wrong, scoped } = credentials(route.api, method, route.pattern);
      const name = `${method} ${route.pattern}`;
      const body = ['POST', 'PATCH', 'PUT'].includes(method) ? '{}' : undefined;
      list.push({
        label: `${name} without credentials`,
        method,
        path,
        headers: { ...json, ...sign(body ?? '') },
        body,
      });
      list.push({ label: `${name} wrong credentials`, method, path, headers: { ...json, ...wrong }, body });
      for (const [index, headers] of scoped.entries()) {
        list.push({
          label: `${name} key ${index ? 'send' : 'read'} only`,
          method,
          path,
          headers: { ...json, ...headers },
          body,
        });
      }
      if (route.params)
        list.push({
          label: `${name} id of nothing`,
          method,
          path,
          headers: { ...json, ...right, ...sign(body ?? '') },
          body,
        });
      if (route.api === 'v1' && 'cookie' in right && body !== undefined) {
        list.push({
          label: `${name} cookie from elsewhere`,
          method,
          path,
          headers: { ...json, ...right, origin: 'https://evil.example' },
          body,
        });
      }
      if (body !== undefined) {
        const malformed = '{"a": [';
        list.push({
          label: `${name} not JSON`,
          method,
          path,
          headers: { ...json, ...right, ...sign(malformed) },
          body: malformed,
        });
        const large = JSON.stringify({ text: 'x'.repeat(BODY_LIMIT * 2) });
        list.push({ label: `${name} too large`, method, path, headers: { ...json, ...right }, body: large });
        if (takesBody(route, method)) {
          list.push({
            label: `${name} invalid body`,
            method,
            path,
            headers: { ...json, ...right, ...sign('[1]') },
            body: '[1]',
          });
        }
      }
    }
    const missing = METHODS.find((m) => !route.methods.has(m));
    if (missing) {
      const { right } = credentials(route.api, [...route.methods][0], route.pattern);
      list.push({
        label: `${missing} ${route.pattern} (not a method of it)`,
        method: missing,
        path,
        headers: { ...right },
      });
    }
    return list;
  }

  async function send(probe: Probe): Promise<Answer> {
    const res = await app.fetch(probe.path, { method: probe.method, headers: probe.headers, body: probe.body });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // Left as text: not JSON fails the shape.
    }
    return { label: probe.label, status: res.status, body };
  }

  /** Sends every probe of every route of `api`; what broke the shape, and the statuses and codes seen. */
  async function walk(api: Api) {
    const mine = routes.filter((route) => route.api === api);
    const answers: Answer[] = [];
    for (const route of mine) for (const probe of probes(route)) answers.push(await send(probe));
    const shape = api === 'drop-in' ? theirShape : ourShape;
    const refusals = answers.filter((a) => a.status >= 400);
    return {
      routes: mine.length,
      answers,
      misshapen: refusals
        .filter((a) => !shape(a))
        .map((a) => `${a.label} → ${a.status} ${JSON.stringify(a.body).slice(0, 200)}`),
      serverErrors: refusals.filter((a) => a.status >= 500).map((a) => `${a.label} → ${a.status}`),
      statuses: new Set(refusals.map((a) => a.status)),
    };
  }

  // Per API: its shape, at least how many routes it has, every kind of refusal it must have shown
  // (none >= 500: every route is served), and whether 422 may stand (the SMSGate side answers
  // validation with 400, as SMSGate does).
  it.each([
    ['v1', '{code, message, status, errors?}', 50, [400, 401, 403, 404, 405, 413, 422]],
    ['drop-in', '{message, data: {code, errors?}}', 15, [400, 401, 403, 404, 405, 413]],
    ['mobile', '{code, message, status, errors?}', 6, [400, 401, 403, 405, 413]],
    ['phone webhook', '{code, message, status, errors?}', 0, [400, 401, 405, 413]],
  ] satisfies [Api, string, number, number[]][])(
    'answers every refusal of the %s API as %s',
    async (api, _shape, routes, statuses) => {
      const result = await walk(api);
      expect(result.routes).toBeGreaterThan(routes);
      expect(result.misshapen).toEqual([]);
      expect(result.serverErrors).toEqual([]);
      expect([...result.statuses]).toEqual(expect.arrayContaining(statuses));
      if (api !== 'v1') expect(result.statuses.has(422)).toBe(false);
    },
    120_000,
  );
});
