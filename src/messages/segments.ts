// How many SMS segments a text needs, the way phones split it: GSM-7 when every character is in the
// GSM 03.38 alphabet (extension characters take two septets), UCS-2 otherwise. The table's 0x1B is
// the escape to the extension table, not a character, so nothing stands in its place below.

const GSM_BASIC =
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?' +
  '¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
const GSM_EXTENDED = '^{}\\[~]|€\f';

const basic = new Set([...GSM_BASIC]);
const extended = new Set([...GSM_EXTENDED]);

export type Encoding = 'gsm7' | 'ucs2';

export interface SegmentInfo {
  encoding: Encoding;
  segments: number;
}

function pack(units: number[], single: number, multi: number): number {
  const total = units.reduce((sum, n) => sum + n, 0);
  if (total <= single) return 1;
  // A character (an escape pair, a surrogate pair) never straddles two segments.
  let segments = 1;
  let used = 0;
  for (const n of units) {
    if (used + n > multi) {
      segments += 1;
      used = 0;
    }
    used += n;
  }
  return segments;
}

export function countSegments(text: string): SegmentInfo {
  const chars = [...text];
  if (chars.length === 0) return { encoding: 'gsm7', segments: 1 };
  if (chars.every((c) => basic.has(c) || extended.has(c))) {
    return {
      encoding: 'gsm7',
      segments: pack(
        chars.map((c) => (extended.has(c) ? 2 : 1)),
        160,
        153,
      ),
    };
  }
  return {
    encoding: 'ucs2',
    segments: pack(
      chars.map((c) => c.length),
      70,
      67,
    ),
  };
}
