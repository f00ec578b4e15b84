import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionView, userView } from '../../src/accounts/accounts.views';
import { apiKeyView } from '../../src/api-keys/api-keys.views';
import {
  deviceView,
  pairingCodeCreatedView,
  pairingCodeStatusView,
  pairingRefusalView,
} from '../../src/devices/devices.views';
import { batchView, estimateView, messageView, outboxRowView } from '../../src/messages/messages.views';
import { attachmentView, mmsNoticeView, mmsView } from '../../src/mms/mms.views';
import { resources } from '../../src/openapi-parts';
import type { JsonSchema } from '../../src/openapi/yup-to-json-schema';
import { optOutView } from '../../src/opt-outs/opt-outs.views';
import { templateView } from '../../src/templates/templates.views';
import { tokenView } from '../../src/tokens/tokens.views';
import { limitsView, planView, usageView } from '../../src/plans/plans.views';
import { deliveryView, webhookView } from '../../src/webhooks/webhooks.views';
import { createKey, json, registerAccount } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/app';
import { readJson } from '../support/http';
import { bearer, pairPhone } from '../devices/helpers';

/**
 * Stands in for any entity: dates for `…At` and `…Until` fields, a JSON text for `body` (deliveries parse it),
 * a string otherwise. A view's keys do not depend on the values, only on the view.
 */
const entity = <T>(): T =>
  new Proxy(
    {},
    {
      get: (_, key) => (typeof key === 'string' && /(At|Until)$/.test(key) ? new Date(0) : key === 'body' ? '{}' : 'x'),
    },
  ) as T;

const documentedKeys = (name: string) => Object.keys((resources[name] as { properties: object }).properties).sort();

/** The JSON type of a value, as JSON Schema names it. */
const jsonType = (value: unknown): string =>
  value === null
    ? 'null'
    : Array.isArray(value)
      ? 'array'
      : Number.isInteger(value)
        ? 'integer'
        : typeof value === 'number'
          ? 'number'
          : typeof value;

/** Keys equal to the documented ones, and each value of a documented type. */
function expectDocumented(name: string, value: Record<string, unknown>) {
  // A documented key that is not required (a received MMS's on a message) may be absent.
  const required = (resources[name] as { required: string[] }).required;
  const expected = documentedKeys(name).filter((key) => required.includes(key) || key in value);
  expect(Object.keys(value).sort(), name).toEqual(expected);
  const properties = (resources[name] as { properties: Record<string, JsonSchema> }).properties;
  for (const [key, schema] of Object.entries(properties)) {
    if (!(key in value)) continue;
    const types = schema.type === undefined ? null : ([] as unknown[]).concat(schema.type);
    if (types) expect(types, `${name}.${key} = ${JSON.stringify(value[key])}`).toContain(jsonType(value[key]));
    if (schema.format === 'date-time' && typeof value[key] === 'string') {
      expect(value[key], `${name}.${key}`).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
    }
  }
}

describe('the documented resources', () => {
  it('have exactly the keys each view renders', () => {
    const rendered: Record<string, object> = {
      Batch: batchView(entity()),
      Message: { ...messageView(entity()), ...mmsView({ subject: null, attachments: [] }) },
      Attachment: attachmentView(entity()),
      MmsNotice: mmsNoticeView('x', entity(), 'x'),
      OutboxRow: outboxRowView(entity()),
      OptOut: optOutView(entity()),
      Template: templateView(entity()),
      Device: deviceView(entity()),
      Estimate: estimateView({
        deviceId: 'x',
        recipients: 1,
        ahead: 0,
        secondsPerMessage: 60,
        pausedUntil: null,
        startsAt: new Date(0),
        finishesAt: new Date(60_000),
      }),
      PairingCode: pairingCodeCreatedView(entity(), 'code', 'url', 'https://x/compat/smsgate/api/mobile/v1'),
      PairingCodeStatus: pairingCodeStatusView(entity(), entity()),
      PairingRefusal: pairingRefusalView(entity()),
      Webhook: webhookView(entity()),
      Delivery: deliveryView(entity()),
      APIKey: apiKeyView(entity()),
      Token: tokenView(entity()),
      User: userView(entity()),
      SessionView: sessionView(entity(), 'x'),
      Plan: planView(entity()),
      Limits: limitsView(entity()),
      UsageView: usageView({ sentToday: 0, sentThisMonth: 0, receivedToday: 0, receivedThisMonth: 0 }),
    };
    for (const [name, view] of Object.entries(rendered)) {
      expect(Object.keys(view).sort(), name).toEqual(documentedKeys(name));
    }
  });

  describe('as the API renders them', () => {
    let app: TestApp;
    beforeAll(async () => {
      app = await startTestApp();
    });
    afterAll(() => app?.close());

    it('match in keys and types', async () => {
      const account = await registerAccount(app, { verified: true });
      const key = await createKey(app, account);
      const get = async (path: string, headers: Record<string, string> = { 'x-api-key': key }) => {
        const res = await app.fetch(path, { headers });
        expect(res.status, path).toBe(200);
        return readJson(res);
      };

      const me = await get('/v1/auth/me');
      expectDocumented('User', me.user);
      expectDocumented('Limits', me.limits);
      expectDocumented('UsageView', me.usage);
      expectDocumented('SessionView', (await get('/v1/auth/sessions', { cookie: account.cookie })).data[0]);
      expectDocumented('APIKey', (await get('/v1/api-keys', { cookie: account.cookie })).data[0]);
      await app.fetch('/v1/tokens', json('POST', {}, { 'x-api-key': key }));
      expectDocumented('Token', (await get('/v1/tokens')).data[0]);
      expectDocumented('Plan', (await get('/v1/plans')).data[0]);
      expectDocumented('Stats', await get('/v1/stats'));
      const usage = await get('/v1/usage?from=2026-01-01&to=2026-01-02');
      expectDocumented('UsageReport', usage);
      expectDocumented('UsageRow', usage.periods[0]);

      const codeRes = await app.fetch('/v1/devices/pairing-codes', json('POST', undefined, { 'x-api-key': key }));
      const code = await readJson(codeRes);
      expectDocumented('PairingCode', code);
      expectDocumented('PairingCodeStatus', await get(`/v1/devices/pairing-codes/${code.id}`));

      const phone = await pairPhone(app, key);
      expectDocumented('Device', phone.device);
      const status = await get(`/v1/devices/pairing-codes/${code.id}`);
      expect(status.device).toBeNull();
      expectDocumented('Device', (await get(`/v1/devices/${phone.id}`)).device);

      const inbound = await app.fetch(
        '/v1/device/inbound',
        json('POST', { body: 'Hi', sender: '+15550100', received_at: new Date().toISOString() }, bearer(phone.token)),
      );
      expect(inbound.status).toBe(201);
      expectDocumented('Message', (await readJson(inbound)).message);
      const [conversation] = (await get('/v1/conversations')).data;
      expectDocumented('Conversation', conversation);
      expectDocumented('Message', conversation.last_message);

      const optOut = await app.fetch(
        '/v1/opt-outs',
        json('POST', { phone_number: '+14155550123' }, { 'x-api-key': key }),
      );
      expect(optOut.status).toBe(201);
      expectDocumented('OptOut', (await readJson(optOut)).opt_out);
      expectDocumented('OptOut', (await get('/v1/opt-outs')).data[0]);

      // The first three characters of the live code, the rest mistyped: a refusal its account sees.
      const typo = code.code.slice(0, 3) + (code.code.endsWith('22222') ? '33333' : '22222');
      const refused = await app.fetch('/v1/device/pair', json('POST', { code: typo, hardware_key: 'hw-typo' }));
      expect(refused.status).toBe(400);
      expectDocumented('PairingRefusal', (await get('/v1/devices/pairing-refusals')).data[0]);
    });
  });
});
