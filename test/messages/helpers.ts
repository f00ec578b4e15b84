import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { expect } from 'vitest';
import { batchWorkflowId } from '../../workflows/definitions';
import type { TestApp } from '../support/app';
import { createKey, json, registerAccount } from '../support/accounts';
import { bearer, pairPhone, type PairedPhone } from '../devices/helpers';
import { eventsOf as storedEvents } from '../support/factories';
import { readJson } from '../support/http';

/** A verified account on a plan with room, an all-scopes key, one paired phone, and a caller with the key. */
export async function sendingTenant(app: TestApp, options: { plan?: string; verified?: boolean } = {}) {
  const account = await registerAccount(app, { verified: options.verified ?? true, plan: options.plan ?? 'pro' });
  const key = await createKey(app, account);
  const phone = await pairPhone(app, key);
  const call = (method: string, path: string, body?: unknown) => app.fetch(path, json(method, body, { 'x-api-key': key }));
  return { account, key, phone, call };
}

/** The events an account's changes recorded: storage is where the webhooks' outbox is seen. */
export const eventsOf = async (app: TestApp, userId: string) =>
  (await storedEvents(app.orm, { userId })).map((e) => ({ name: e.name, message_id: e.messageId }));

type Call = (method: string, path: string, body?: unknown) => Promise<Response>;

/** What the cancel tests read around a send: its workflow, its batch, the phone's outbox, the usage. */
export function sendProbes(app: TestApp, env: TestWorkflowEnvironment) {
  return {
    /** The API's clock follows the test server's, which time skipping moves. */
    async syncClock() {
      app.clock.set(new Date(await env.currentTimeMs()));
    },
    workflowStatus: async (batchId: string) =>
      (await env.client.workflow.getHandle(batchWorkflowId(batchId)).describe()).status.name,
    async send(call: Call, body: Record<string, unknown>) {
      const res = await call('POST', '/v1/messages', body);
      expect(res.status).toBe(202);
      return readJson(res);
    },
    batchOf: async (call: Call, id: string) => readJson(await call('GET', `/v1/batches/${id}`)),
    outbox: async (phone: PairedPhone, limit?: number) =>
      (
        await readJson(
          await app.fetch(`/v1/device/outbox${limit ? `?limit=${limit}` : ''}`, { headers: bearer(phone.token) }),
        )
      ).data as Array<{ id: string }>,
    usage: async (call: Call) => (await readJson(await call('GET', '/v1/auth/me'))).usage,
  };
}
