import { describe, expect, it } from 'vitest';
import { normalizeRecipients } from '../../src/messages/recipients';

describe('recipient normalisation', () => {
  it('normalises to E.164 and keeps the first of duplicates, in order', () => {
    expect(normalizeRecipients(['+1 (415) 555-0123', '+442079460958', '+14155550123', ' +44 20 7946 0958 '])).toEqual({
      numbers: ['+14155550123', '+442079460958'],
      errors: [],
      invalidCount: 0,
    });
  });

  it('reads national numbers in the default country', () => {
    expect(normalizeRecipients(['020 7946 0958', '07911 123456'], 'GB').numbers).toEqual([
      '+442079460958',
      '+447911123456',
    ]);
  });

  it('reports each invalid entry at its index', () => {
    const { numbers, errors } = normalizeRecipients(['+14155550123', 'hello', '12', '0207946095']);
    expect(numbers).toEqual(['+14155550123']);
    expect(errors.map((e) => e.field)).toEqual(['body.to[1]', 'body.to[2]', 'body.to[3]']);
  });

  it('lists the first 100 invalid entries, counts them all, and parses a repeated entry once', () => {
    const to = ['+14155550123', ...Array.from({ length: 250 }, () => 'not a number'), '+14155550123'];
    const { numbers, errors, invalidCount } = normalizeRecipients(to);
    expect(numbers).toEqual(['+14155550123']);
    expect(errors).toHaveLength(100);
    expect(errors[0].message).toBe('to[1] is not a valid phone number (use E.164, e.g. +14155550123)');
    expect(errors[99]).toEqual({ field: 'body.to[100]', message: 'to[100] is not a valid phone number' });
    expect(invalidCount).toBe(250);
  });
});
