import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../../support/app';
import type { WorkflowStack } from '../../support/temporal';
import { registeredApp, startSmsGateStack, tenant } from './helpers';
import { INTEGRATOR_API } from './integrator-client';
import { readJson } from '../../support/http';

// SMSGate's published Python client (PyPI android-sms-gateway 4.3.3, android_sms_gateway/client.py
// APIClient), installed by python/install.sh into the cache on first use, runs python/integrator.py
// against the integrator API: Basic with the key as password, then Bearer with the key alone.

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

  it('lists, sends, reads, manages webhooks and settings with Basic and Bearer credentials', async () => {
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
      settings: { sim_selection_mode: 'RoundRobin', limit_period: 'PerDay', limit_value: 500, processing_order: 'LIFO' },
    });
    // patch_settings set the phone's own settings.
    const device = (await readJson(await app.fetch(`/v1/devices/${deviceId}`, { headers: { 'x-api-key': key } }))).device;
    expect(device).toMatchObject({ sim_selection: 'round_robin', max_sends_per_day: 500, processing_order: 'lifo' });
  });
});
