// The standard opt-out and opt-in keywords carriers and other gateways honour. A text matches when
// its whole body is one of them, whatever its case and spacing ("  stop ", "Stop All").

const OPT_OUT = new Set(['STOP', 'STOPALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT']);
const OPT_IN = new Set(['START', 'UNSTOP']);

/** What an inbound text's body asks for: `out` (suppress its sender), `in` (lift it), or nothing. */
export function keywordOf(body: string): 'out' | 'in' | null {
  // Only short bodies can be a keyword: no work for real texts.
  if (body.length > 40) return null;
  const word = body.replace(/\s+/g, '').toUpperCase();
  if (OPT_OUT.has(word)) return 'out';
  if (OPT_IN.has(word)) return 'in';
  return null;
}
