import { describe, expect, it } from 'vitest';
import { plainReports, reportsBody } from '../../src/messages/phone-messages.schemas';

// The batched report's quick reading must give exactly what yup's reportsBody gives, or step aside
// (undefined) so yup answers: the route's 4xx body is then yup's own.
const id = '3f1c2b9e-8d7a-4c6b-9e5f-1a2b3c4d5e6f';
const yupValue = (input: unknown) =>
  reportsBody.validateSync(input, { abortEarly: false, stripUnknown: true, context: { query: false } });

describe('plainReports: the batched report read without yup', () => {
  it.each([
    [{ reports: [{ id, status: 'delivered' }] }],
    [{ reports: [{ id, status: 'sent', at: '2026-01-02T03:04:05Z' }] }],
    [{ reports: [{ id, status: 'sent', at: '2026-01-02T03:04:05.123+02:00', error_code: null, error_message: null }] }],
    [{ reports: [{ id, status: 'failed', at: null, error_code: 'RESULT_ERROR_GENERIC_FAILURE', error_message: 'x' }] }],
    [{ reports: [{ id, status: 'failed', error_code: 'c'.repeat(100), error_message: 'm'.repeat(1000) }] }],
    [{ reports: [{ id: id.toUpperCase(), status: 'sent', unknown: { deep: 1 } }], also: 'stripped' }],
    [{ reports: Array.from({ length: 500 }, (_, i) => ({ id, status: i % 2 ? 'sent' : 'delivered' })) }],
  ])('reads %j as yup does', (input) => {
    const quick = plainReports(input);
    expect(quick).toBeDefined();
    expect(quick).toStrictEqual(yupValue(input));
  });

  it.each([
    [{ reports: [] }],
    [{ reports: Array.from({ length: 501 }, () => ({ id, status: 'sent' })) }],
    [{ reports: [{ id, status: 'queued' }] }],
    [{ reports: [{ id: 'not-an-id', status: 'sent' }] }],
    [{ reports: [{ id: '00000000-0000-0000-0000-000000000000', status: 'sent' }] }],
    [{ reports: [{ id, status: 'sent', at: '2026-13-02T03:04:05Z' }] }],
    [{ reports: [{ id, status: 'sent', at: 1_700_000_000 }] }],
    [{ reports: [{ id, status: 'sent', error_code: 'c'.repeat(101) }] }],
    [{ reports: [{ id, status: 'sent', error_message: 7 }] }],
    [{ reports: [null] }],
    [{ reports: [[id, 'sent']] }],
    [{ reports: 'all' }],
    [[{ id, status: 'sent' }]],
    [null],
  ])('leaves %j to yup', (input) => {
    expect(plainReports(input)).toBeUndefined();
  });
});
