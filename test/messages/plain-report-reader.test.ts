import type { Context } from 'koa';
import { describe, expect, it } from 'vitest';
import { validate } from '../../src/http/validate';
import { reportsBody } from '../../src/messages/phone-messages.schemas';
import { plainReports } from '../../src/messages/plain-report-reader';
import { newId } from '../../src/lib/ids';

// The plain-report reader against its slow path, yup's reportsBody through the route's validate(),
// on the same bodies. The rule (src/messages/plain-report-reader.ts): whatever the reader reads is
// exactly yup's value, and it reads nothing yup refuses; it may leave a valid body to yup.
const id = '3f1c2b9e-8d7a-4c6b-9e5f-1a2b3c4d5e6f';

/** What validate() makes of the body: its value, or the refusal (a 422 with its field errors). */
async function slowPath(body: unknown): Promise<{ value: unknown } | { refused: unknown }> {
  try {
    const ctx = { request: { body }, query: {} } as unknown as Context;
    return { value: (await validate(ctx, { body: reportsBody })).body };
  } catch (error) {
    return { refused: error };
  }
}

// Each body with whether the reader should take it ('read') or leave it to yup ('yup').
const bodies: [string, unknown, 'read' | 'yup'][] = [
  ['one report', { reports: [{ id, status: 'delivered' }] }, 'read'],
  ['an id of version 7, as this service makes', { reports: [{ id: newId(), status: 'sent' }] }, 'read'],
  ['a time', { reports: [{ id, status: 'sent', at: '2026-01-02T03:04:05Z' }] }, 'read'],
  [
    'an offset and explicit nulls',
    { reports: [{ id, status: 'sent', at: '2026-01-02T03:04:05.123+02:00', error_code: null, error_message: null }] },
    'read',
  ],
  [
    'a failure with its error',
    { reports: [{ id, status: 'failed', at: null, error_code: 'RESULT_ERROR_GENERIC_FAILURE', error_message: 'x' }] },
    'read',
  ],
  [
    'errors at their longest',
    { reports: [{ id, status: 'failed', error_code: 'c'.repeat(100), error_message: 'm'.repeat(1000) }] },
    'read',
  ],
  [
    'unknown fields, stripped',
    { reports: [{ id: id.toUpperCase(), status: 'sent', unknown: { deep: 1 } }], also: 'stripped' },
    'read',
  ],
  [
    '500 reports',
    { reports: Array.from({ length: 500 }, (_, i) => ({ id, status: i % 2 ? 'sent' : 'delivered' })) },
    'read',
  ],
  ['no report', { reports: [] }, 'yup'],
  ['501 reports', { reports: Array.from({ length: 501 }, () => ({ id, status: 'sent' })) }, 'yup'],
  ['a status a phone cannot report', { reports: [{ id, status: 'queued' }] }, 'yup'],
  ['an id that is no uuid', { reports: [{ id: 'not-an-id', status: 'sent' }] }, 'yup'],
  ['the nil uuid', { reports: [{ id: '00000000-0000-0000-0000-000000000000', status: 'sent' }] }, 'read'],
  ['a month 13', { reports: [{ id, status: 'sent', at: '2026-13-02T03:04:05Z' }] }, 'yup'],
  ['a time as a number', { reports: [{ id, status: 'sent', at: 1_700_000_000 }] }, 'yup'],
  ['an error code too long', { reports: [{ id, status: 'sent', error_code: 'c'.repeat(101) }] }, 'yup'],
  ['an error message too long', { reports: [{ id, status: 'sent', error_message: 'm'.repeat(1001) }] }, 'yup'],
  ['an error message as a number', { reports: [{ id, status: 'sent', error_message: 7 }] }, 'yup'],
  ['no status', { reports: [{ id }] }, 'yup'],
  ['a null item', { reports: [null] }, 'yup'],
  ['an item as an array', { reports: [[id, 'sent']] }, 'yup'],
  [
    'one odd item among plain ones',
    {
      reports: [
        { id, status: 'sent' },
        { id, status: 'lost' },
      ],
    },
    'yup',
  ],
  ['reports as text', { reports: 'all' }, 'yup'],
  ['a bare array', [{ id, status: 'sent' }], 'yup'],
  ['null', null, 'yup'],
  ['nothing', undefined, 'yup'],
];

describe('the plain-report reader and yup’s reportsBody, on the same bodies', () => {
  it.each(bodies)('%s', async (_name, body, expected) => {
    const fast = plainReports(body);
    const slow = await slowPath(body);
    if (fast !== undefined) expect(slow).toStrictEqual({ value: fast });
    // Which path answers is part of the table: a reader that stepped aside for everything would pass the line above.
    expect(fast === undefined ? 'yup' : 'read').toBe(expected);
  });

  it('has bodies yup refuses and bodies it accepts', async () => {
    const slow = await Promise.all(bodies.map(([, body]) => slowPath(body)));
    expect(slow.filter((result) => 'refused' in result).length).toBeGreaterThan(10);
    expect(slow.filter((result) => 'value' in result).length).toBeGreaterThan(5);
  });
});
