import { describe, expect, it } from 'vitest';
import { counterOf, reportMoves } from '../../src/messages/transitions';

describe('message transitions', () => {
  it.each([
    ['queued', 'sent', true],
    ['dispatched', 'sent', true],
    ['dispatched', 'delivered', true],
    ['dispatched', 'failed', true],
    ['unknown', 'sent', true],
    ['unknown', 'delivered', true],
    ['unknown', 'failed', true],
    ['sent', 'delivered', true],
    ['sent', 'failed', true],
    ['sent', 'sent', false],
    ['delivered', 'sent', false],
    ['delivered', 'failed', false],
    ['delivered', 'delivered', false],
    ['failed', 'sent', false],
    ['failed', 'failed', false],
    ['received', 'sent', false],
  ] as const)('%s + report %s moves: %s', (current, reported, moves) => {
    expect(reportMoves(current, reported)).toBe(moves);
  });

  it('counts each message in exactly one batch counter, none while queued', () => {
    expect(counterOf('queued')).toBeNull();
    expect(counterOf('dispatched')).toBe('dispatched_count');
    expect(counterOf('unknown')).toBe('unknown_count');
  });
});
