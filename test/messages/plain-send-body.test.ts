import type { Context } from 'koa';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/http/errors';
import { validate } from '../../src/http/validate';
import { sendBody } from '../../src/messages/messages.schemas';
import { sendBodyFor } from '../../src/messages/plain-send-body';

// A send's body validated with the schema sendBodyFor picks, against sendBody itself: the same value
// or the same refusal, field by field, whichever it picks.
async function outcome(schema: typeof sendBody, body: unknown): Promise<{ value: unknown } | { refused: unknown }> {
  try {
    const ctx = { request: { body }, query: {} } as unknown as Context;
    return { value: (await validate(ctx, { body: schema })).body };
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { refused: error.toBody() };
  }
}

const number = '+14155550123';
const later = () => new Date(Date.now() + 3_600_000).toISOString();

// Each body with whether its entries are taken as they are ('plain') or checked one by one ('each').
const bodies: [string, unknown, 'plain' | 'each'][] = [
  ['one number', { body: 'hi', to: [number] }, 'plain'],
  ['numbers in any format', { body: 'hi', to: ['+1 (415) 555-0123', '0207 946 0958', 'x'.repeat(64)] }, 'plain'],
  ['a text that is not a number', { body: 'hi', to: ['hello'] }, 'plain'],
  [
    'every field',
    {
      body: 'hi',
      to: [number],
      device_id: '3f1c2b9e-8d7a-4c6b-9e5f-1a2b3c4d5e6f',
      scheduled_at: later(),
      sim_subscription_id: 1,
      ttl_seconds: 60,
      priority: null,
      unknown: 'stripped',
    },
    'plain',
  ],
  ['variables of the wrong length', { body: 'hi {name}', to: [number, number], variables: [{ name: 'a' }] }, 'plain'],
  ['another field wrong', { body: '', to: [number], device_id: 'nope', ttl_seconds: 0 }, 'plain'],
  ['no recipient', { body: 'hi', to: [] }, 'plain'],
  ['encrypted given as text', { body: 'hi', to: [number], encrypted: 'yes' }, 'plain'],
  ['data and a body', { body: 'hi', data: { base64: 'AAAA', port: 1 }, to: [number] }, 'plain'],
  ['an empty entry', { body: 'hi', to: [number, ''] }, 'each'],
  ['an entry too long', { body: 'hi', to: ['1'.repeat(65)] }, 'each'],
  ['a number as a number', { body: 'hi', to: [14155550123] }, 'each'],
  ['a null entry', { body: 'hi', to: [null] }, 'each'],
  ['an object entry', { body: 'hi', to: [{ toString: 1 }] }, 'each'],
  ['encrypted, with plain numbers', { body: 'hi', to: [number], encrypted: true }, 'each'],
  ['to as text', { body: 'hi', to: number }, 'each'],
  ['no to', { body: 'hi' }, 'each'],
  ['no body at all', null, 'each'],
  ['a list for a body', [number], 'each'],
];

describe('the send body schema', () => {
  it.each(bodies)('%s: the same value or refusal as sendBody', async (_name, body, path) => {
    const schema = sendBodyFor(body);
    expect(schema === sendBody ? 'each' : 'plain').toBe(path);
    expect(await outcome(schema, body)).toEqual(await outcome(sendBody, body));
  });
});
