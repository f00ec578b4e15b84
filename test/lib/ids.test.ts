import { describe, expect, it } from 'vitest';
import { UUID, uuid } from '../../src/lib/fields';
import { newId, newIds } from '../../src/lib/ids';

const millisecondsOf = (id: string) => parseInt(id.replace(/-/g, '').slice(0, 12), 16);

describe('new ids', () => {
  it('are UUIDs of version 7 with the RFC variant', () => {
    for (const id of newIds(1_000)) {
      expect(id).toMatch(UUID);
      expect(id[14]).toBe('7');
      expect('89ab').toContain(id[19]);
    }
  });

  it('begin with the time they were made, in milliseconds', () => {
    for (const now of [0, 1, 2 ** 16 - 1, 2 ** 16, 2 ** 32 + 5, Date.UTC(2026, 10, 29, 12), 2 ** 48 - 1]) {
      expect(millisecondsOf(newId(now))).toBe(now);
    }
  });

  it('sort in the order they were made, a millisecond apart', () => {
    const times = [0, 255, 256, 2 ** 16 - 1, 2 ** 16, 2 ** 32 - 1, 2 ** 32, Date.UTC(2026, 10, 29, 12)];
    const ids = times.map((now) => newId(now));
    expect([...ids].sort()).toEqual(ids);
  });

  it('differ from each other within one millisecond', () => {
    const ids = newIds(10_000, Date.UTC(2026, 10, 29, 12));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('pass the uuid field, which yup alone would refuse', async () => {
    const id = newId();
    await expect(uuid().validate(id)).resolves.toBe(id);
    await expect(uuid().validate('3f1c2b9e-8d7a-4c6b-9e5f-1a2b3c4d5e6f')).resolves.toBeDefined();
    await expect(uuid().validate('3f1c2b9e-8d7a-4c6b-9e5f-1a2b3c4d5e6')).rejects.toThrow('this must be a UUID');
    await expect(uuid().validate('')).rejects.toThrow('this must be a UUID');
  });
});
