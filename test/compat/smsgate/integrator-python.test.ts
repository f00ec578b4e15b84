import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../../support/app';
import type { WorkflowStack } from '../../support/temporal';
import { registeredApp, startSmsGateStack, tenant } from './helpers';
import { INTEGRATOR_API } from './integrator-client';

// SMSGate's published Python client (PyPI android-sms-gateway 4.3.3, android_sms_gateway/client.py
// APIClient), installed by python/install.sh into the cache on first use, runs python/integrator.py
// against the integrator API: Basic with the key as password, then Bearer with the key alone, then a
// token it mints (generate_token) as Bearer until it revokes it (revoke_token).

const run = promisify(execFile);
const here = path.join(__dirname, 'python');

describe('SMSGate’s Python client', () => {
  let stack: WorkflowStack;
  let app: TestApp;
  let python: string;

  beforeAll(async () => {
    // The webhook URL is only registered (nothing is sent to it): loopback is allowed.
    stack = await startSmsGateStack('smsgate-python', { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
    ({ app } = stack);
    python = (await run(path.join(here, 'install.sh'), [], { timeout: 170_000 })).stdout.trim();
  }, 180_000);
  afterAll(async () => {
    await stack?.close();
  });

  it('lists, sends, reads, manages webhooks and mints tokens with Basic and Bearer credentials', async () => {
    const { key } = await tenant(app);
    const phone = await registeredApp(app, key);
    const deviceId = phone.state.registration!.id;
    const { stdout } = await run(
      python,
      [path.join(here, 'integrator.py'), `${app.url}${INTEGRATOR_API}`, key, 'https://127.0.0.1:9/smsgate'],
      { timeout: 60_000 },
    );
    expect(JSON.parse(stdout)).toEqual({
      health: 'pass',
      devices: [deviceId],
      webhook: { id: 'py-hook', event: 'sms:sent' },
      webhooks: ['py-hook'],
      sent: { id: 'py-1', state: 'Pending' },
      state: { id: 'py-1', state: 'Pending', recipients: ['+14155550170'] },
      list: ['py-1'],
      unknown: { status: 404, message: expect.any(String) },
      webhooks_after: [],
      bearer_devices: [deviceId],
      token: { type: 'Bearer', prefix: 'tk_', expires_at: expect.any(String) },
      token_devices: [deviceId],
      token_other_scope: { status: 403, message: expect.any(String) },
      token_revoked: { status: 401, message: expect.any(String) },
      token_unknown_scope: { status: 400, message: expect.any(String) },
    });
    const { token } = JSON.parse(stdout) as { token: { expires_at: string } };
    // ttl=600 asked: the token lives ten minutes from its minting.
    expect(new Date(token.expires_at).getTime() - Date.now()).toBeGreaterThan(540_000);
    expect(new Date(token.expires_at).getTime() - Date.now()).toBeLessThanOrEqual(600_000);
  });
});
