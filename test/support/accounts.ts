import { randomUUID } from 'node:crypto';
import type { TestApp } from './app';
import { setPlan, verifyUser } from './factories';
import { asBrowser } from './http';

export const PASSWORD = 'correct horse battery';

/** A unique address per call, so test files never share an account. */
export const uniqueEmail = (label = 'user') => `${label}-${randomUUID().slice(0, 8)}@example.test`;

/** The `sid` cookie from a response, as a Cookie header value. */
export function sessionCookie(res: Response): string {
  const header = res.headers.getSetCookie().find((c) => c.startsWith('sid='));
  if (!header) throw new Error('no session cookie set');
  return header.split(';')[0];
}

export interface Account {
  email: string;
  userId: string;
  cookie: string;
}

/** Registers an account (optionally verified) and returns its session cookie. */
export async function registerAccount(
  app: TestApp,
  options: { verified?: boolean; plan?: string } = {},
): Promise<Account> {
  const email = uniqueEmail();
  const res = await app.fetch('/v1/auth/register', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: PASSWORD }),
  });
  if (res.status !== 201) throw new Error(`register failed: ${res.status} ${await res.text()}`);
  const { user } = (await res.json()) as { user: { id: string } };
  if (options.verified) await verifyUser(app.orm, user.id);
  if (options.plan) await setPlan(app.orm, user.id, options.plan);
  return { email, userId: user.id, cookie: sessionCookie(res) };
}

/** Creates an API key through the API with the given scopes (all when omitted). */
export async function createKey(app: TestApp, account: Account, scopes?: string[]): Promise<string> {
  const res = await app.fetch('/v1/api-keys', {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie: account.cookie },
    body: JSON.stringify({ name: 'test key', ...(scopes ? { scopes } : {}) }),
  });
  if (res.status !== 201) throw new Error(`key creation failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { key: string }).key;
}

/** JSON request helper; with a cookie, a change carries what a browser's same-origin fetch does. */
export function json(method: string, body?: unknown, headers: Record<string, string> = {}): RequestInit {
  const all: Record<string, string> = {};
  asBrowser(method, { 'content-type': 'application/json', ...headers }).forEach((value, name) => (all[name] = value));
  return {
    method,
    headers: all,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  };
}
