import * as yup from '../lib/yup';
import { pageFields } from '../http/pagination';
import { int, uuid } from '../lib/fields';

/**
 * The longest life a caller may ask for (`expires_in_minutes`), and what the dashboard's pairing card
 * asks for: with the SMSGate app a person installs the app, types a 60-character API URL and the code
 * on a phone keyboard, picks the notification channel and starts the app, often five to ten minutes
 * for a first pairing, so ten leave no margin (docs/phones.md).
 */
export const PAIRING_CODE_MAX_TTL_MINUTES = 30;

/** POST /v1/devices/pairing-codes: no body (the interface's 10 minutes), or another life up to 30 minutes. */
export const createPairingCodeBody = yup.object({
  expires_in_minutes: int(1, PAIRING_CODE_MAX_TTL_MINUTES),
});

/** GET /v1/devices/pairing-refusals: the account's refused attempts, or one code's. */
export const listPairingRefusalsQuery = yup.object({
  ...pageFields(),
  pairing_code_id: uuid(),
});
