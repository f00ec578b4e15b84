// A webhook delivery's error is what Node's HTTPS client said ("Hostname/IP does not match
// certificate's altnames: …"); the dashboard leads with what it means for the receiver's owner.
const PLAIN: Array<[RegExp, string]> = [
  [/altnames|ERR_TLS_CERT_ALTNAME_INVALID/i, 'The receiver’s TLS certificate is for another name than the URL’s host.'],
  [
    /self[- ]signed certificate/i,
    'The receiver’s TLS certificate is self-signed: no trusted authority vouches for it.',
  ],
  [/certificate has expired|CERT_HAS_EXPIRED/i, 'The receiver’s TLS certificate has expired.'],
  [/certificate is not yet valid/i, 'The receiver’s TLS certificate is not valid yet (check its clock or dates).'],
  [
    /unable to (verify the first certificate|get local issuer certificate|get issuer certificate)/i,
    'The receiver’s TLS certificate chain is incomplete or not from a trusted authority.',
  ],
  [/wrong version number|EPROTO|packet length too long/i, 'The receiver does not speak TLS (https) on that port.'],
  [/ECONNREFUSED/, 'Nothing accepted the connection at that address and port.'],
  [/ENOTFOUND|EAI_AGAIN/, 'The host name does not resolve.'],
  [/ECONNRESET|socket hang up/i, 'The receiver closed the connection before answering.'],
  [/ETIMEDOUT|no answer within/i, 'The receiver did not answer in time.'],
];

/** What a delivery's error means, in plain words, or null when it is already plain (or absent). */
export function plainDeliveryError(error: string | null | undefined): string | null {
  if (!error) return null;
  return PLAIN.find(([pattern]) => pattern.test(error))?.[1] ?? null;
}

/** A delivery's answer in a few words: its HTTP status, else what its error means. */
export function deliveryAnswer(delivery: { http_status: number | null; error: string | null }): string {
  if (delivery.http_status !== null) return `HTTP ${delivery.http_status}`;
  return plainDeliveryError(delivery.error) ?? delivery.error ?? '—';
}
