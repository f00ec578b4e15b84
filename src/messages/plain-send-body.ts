// The plain-recipients send body: a fast path of POST /v1/messages' validation. Its slow path, which
// it must equal, is yup's `sendBody` (./messages.schemas.ts) as validate() applies it: for a body
// whose every entry of `to` is plain text within NUMBER_MAX in a send that is not encrypted, each
// entry's rules (text, length, not ciphertext) all pass, so sendBody without them gives the same
// value and the same errors of every other field. Any other body is validated by sendBody itself.
//
// Why it exists: yup checks each entry as a field of its own (three rules and a context each), the
// most of its work in a send of 100 (docs/performance.md). normalizeRecipients reads each number
// after it anyway. test/messages/plain-send-body.test.ts runs both on the same bodies.
import { NUMBER_MAX, recipientList, sendBody } from './messages.schemas';

const isPlainNumber = (entry: unknown) => typeof entry === 'string' && entry.length > 0 && entry.length <= NUMBER_MAX;

// The entries' type is sendBody's: only bodies whose entries are all strings get this schema.
const sendBodyOfPlainNumbers = sendBody.shape({ to: recipientList() }) as unknown as typeof sendBody;

/** The schema a send's body is validated with (see above). */
export function sendBodyFor(body: unknown): typeof sendBody {
  const { to, encrypted } = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  return encrypted !== true && Array.isArray(to) && to.every(isPlainNumber) ? sendBodyOfPlainNumbers : sendBody;
}
