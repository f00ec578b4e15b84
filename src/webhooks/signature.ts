import { createHmac } from 'node:crypto';
import { randomBase62 } from '../lib/crypto';

/** A new signing secret. Shown once; kept in the clear because it must sign. */
export const newSecret = () => `whsec_${randomBase62(40)}`;

/**
 * The X-Service-Signature value: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`, computed
 * on the exact bytes sent (the scheme Stripe uses, so its verifiers work).
 */
export function signatureHeader(secret: string, body: string, unixSeconds: number): string {
  const v1 = createHmac('sha256', secret).update(`${unixSeconds}.${body}`, 'utf8').digest('hex');
  return `t=${unixSeconds},v1=${v1}`;
}

/**
 * The SMSGate app's signature (its PayloadSingingPlugin.kt): X-Signature is the hex HMAC-SHA256 of
 * the body followed by the X-Timestamp value, unix seconds, so SMSGate receivers verify ours.
 */
export function smsgateSignature(secret: string, body: string, unixSeconds: number): Record<string, string> {
  const signature = createHmac('sha256', secret).update(`${body}${unixSeconds}`, 'utf8').digest('hex');
  return { 'X-Signature': signature, 'X-Timestamp': String(unixSeconds) };
}
