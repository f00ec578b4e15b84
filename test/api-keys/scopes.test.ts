import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app';
import { createKey, json, registerAccount, type Account } from '../support/accounts';
import { readJson } from '../support/http';

// One endpoint of each scope, called in a way that passes every check after the scope's.
const ENDPOINTS = {
  read: ['GET', '/v1/devices'],
  send: ['POST', '/v1/messages', { body: 'x', to: [] }],
  devices: ['POST', '/v1/devices/pairing-codes'],
  webhooks: ['GET', '/v1/webhooks'],
} as const;

describe('API key scopes', () => {
  let app: TestApp;
  let account: Account;
  beforeAll(async () => {
    app = await startTestApp();
    account = await registerAccount(app, { verified: true });
  });
  afterAll(() => app?.close());

  it.each(Object.keys(ENDPOINTS))(
    'a key with only %s reaches its endpoint and is refused by the others',
    async (scope) => {
      const key = await createKey(app, account, [scope]);
      for (const [endpointScope, [method, path, body]] of Object.entries(ENDPOINTS)) {
        const res = await app.fetch(path, json(method, body, { 'x-api-key': key }));
        if (endpointScope === scope) {
          // Past the scope check: the send fails on its (empty) body instead.
          expect(res.status, `${scope} → ${method} ${path}`).toBe(
            scope === 'send' ? 422 : scope === 'devices' ? 201 : 200,
          );
        } else {
          expect(res.status, `${scope} → ${method} ${path}`).toBe(403);
          expect(await readJson(res)).toMatchObject({ code: 'insufficient_scope', status: 403 });
        }
      }
    },
  );

  it('lets a dashboard session use every scope', async () => {
    for (const [method, path, body] of Object.values(ENDPOINTS)) {
      const res = await app.fetch(path, json(method, body, { cookie: account.cookie }));
      expect(res.status, `${method} ${path}`).not.toBe(403);
      expect(res.status).not.toBe(401);
    }
  });
});
