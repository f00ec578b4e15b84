import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FUZZ_ENV, startTestApp, type TestApp } from '../../support/app';
import { expectClean, installSchemathesis, runSchemathesis, succeeded, unreached } from '../../support/schemathesis';
import { createTimeSkippingEnv } from '../../support/temporal';
import { createPairingCode } from '../../devices/helpers';
import { registeredApp, tenant } from './helpers';
import { smsgateDocument } from './openapi';

// Schemathesis over the SMSGate drop-in, from the hand-written document in openapi.ts: the
// integrator API with an API key (as SMSGate's Basic password and as a Bearer token), the app's
// mobile API with a registered phone's token (and a pairing code for its registration), the phone
// webhook unsigned. Coverage, fuzzing and stateful phases, bounded by examples. No answer >= 500:
// every call the document names is served.

/** Unpairing the run's own phone would leave the mobile API nothing but 401s. */
const ENDS_ITS_CREDENTIALS = ['DELETE /compat/smsgate/api/3rdparty/v1/devices/\\{id\\}'];

describe('Schemathesis over the SMSGate drop-in and mobile APIs', () => {
  let env: TestWorkflowEnvironment;
  let app: TestApp;
  let st: string;
  let dir: string;

  beforeAll(async () => {
    [st, env] = await Promise.all([installSchemathesis(), createTimeSkippingEnv()]);
    app = await startTestApp({ temporal: env.client, env: FUZZ_ENV });
    dir = mkdtempSync(path.join(tmpdir(), 'smsgate-openapi-'));
  }, 300_000);
  afterAll(async () => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    await app?.close();
    await env?.teardown();
  });

  it('answers every generated request and sequence below 500', async () => {
    const { key } = await tenant(app, 'business');
    const phone = await registeredApp(app, key);
    const { code } = await createPairingCode(app, key);
    const document = smsgateDocument(app.url);
    const schema = path.join(dir, 'smsgate.json');
    writeFileSync(schema, JSON.stringify(document));

    const result = await runSchemathesis(st, {
      schema,
      baseUrl: app.url,
      auth: {
        basic: { username: 'integrator@example.com', password: key },
        integratorBearer: { bearer: key },
        deviceToken: { bearer: phone.state.registration!.token },
        pairingCode: { bearer: code },
      },
      headers: { 'X-Forwarded-For': app.clientIp },
      phases: ['coverage', 'fuzzing', 'stateful'],
      maxExamples: 10,
      statefulExamples: 100,
      maxSeconds: 420,
      exclude: ENDS_ITS_CREDENTIALS,
    });
    expectClean('smsgate', result);

    // Every operation of the document was reached, the credentials held to the end, and sends and
    // webhooks were made.
    expect(unreached(result, document.paths, ENDS_ITS_CREDENTIALS)).toEqual([]);
    const madeIt = [
      'GET /compat/smsgate/api/3rdparty/v1/devices',
      'GET /compat/smsgate/api/3rdparty/v1/webhooks',
      'GET /compat/smsgate/api/mobile/v1/settings',
      'GET /compat/smsgate/api/mobile/v1/message',
      'POST /compat/smsgate/api/3rdparty/v1/messages',
      'POST /compat/smsgate/api/3rdparty/v1/webhooks',
    ];
    expect(madeIt.filter((operation) => !succeeded(result, operation))).toEqual([]);
    expect(result.scenarios).toBeGreaterThan(20);
    expect(result.requests).toBeGreaterThan(1000);
  }, 600_000);
});
