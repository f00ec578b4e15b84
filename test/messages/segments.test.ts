import { describe, expect, it } from 'vitest';
import { countSegments } from '../../src/messages/segments';

describe('SMS segment count', () => {
  it.each([
    ['', 'gsm7', 1],
    ['a'.repeat(160), 'gsm7', 1],
    ['a'.repeat(161), 'gsm7', 2],
    ['a'.repeat(306), 'gsm7', 2],
    ['a'.repeat(307), 'gsm7', 3],
    ['€'.repeat(80), 'gsm7', 1], // extension characters take two septets
    ['€'.repeat(81), 'gsm7', 2],
    ['a' + '€'.repeat(76) + 'b', 'gsm7', 1],
    ['é'.repeat(160), 'gsm7', 1],
    ['ж'.repeat(70), 'ucs2', 1],
    ['ж'.repeat(71), 'ucs2', 2],
    ['ж'.repeat(134), 'ucs2', 2],
    ['ж'.repeat(135), 'ucs2', 3],
    ['😀'.repeat(35), 'ucs2', 1], // each emoji is two UTF-16 units
    ['😀'.repeat(36), 'ucs2', 2],
    ['a\u00a0b', 'ucs2', 1], // a no-break space is not in GSM 03.38: phones send the text as UCS-2
    ['a\u001bb', 'ucs2', 1], // nor is the escape code itself a character of the text
  ])('%#: counts %j', (text, encoding, segments) => {
    expect(countSegments(text)).toEqual({ encoding, segments });
  });

  it('keeps an escape pair in one segment', () => {
    // 152 septets of plain text then '€' (2 septets) would straddle 153: it moves to segment 2.
    const text = 'a'.repeat(152) + '€' + 'a'.repeat(10);
    expect(countSegments(text)).toEqual({ encoding: 'gsm7', segments: 2 });
    expect(countSegments('a'.repeat(305) + '€')).toEqual({ encoding: 'gsm7', segments: 3 });
  });
});
