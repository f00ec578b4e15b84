import createClient from 'openapi-fetch';
import type { components, paths } from './schema';

export type Schemas = components['schemas'];
export type ApiError = Schemas['Error'];

/** Same origin, session cookie: the browser sends `sid` and the Origin the API checks. */
export const api = createClient<paths>({ baseUrl: window.location.origin, credentials: 'same-origin' });

// The API names a field as its JSON does ("body.scheduled_at must be in the future"); a person reads
// the words of the form. Fields not listed read as their name with spaces.
const FIELD_WORDS: Record<string, string> = {
  body: 'The message',
  code: 'The code',
  current_password: 'The current password',
  device_id: 'The phone',
  email: 'The email address',
  events: 'The events',
  expires_at: 'The expiry time',
  heartbeat_interval_minutes: 'The heartbeat interval',
  max_sends_per_day: 'The limit per day',
  max_sends_per_hour: 'The limit per hour',
  max_sends_per_minute: 'The limit per minute',
  name: 'The name',
  new_password: 'The new password',
  password: 'The password',
  phone_number: 'The number',
  scheduled_at: 'The send time',
  scopes: 'The scopes',
  send_delay_jitter_seconds: 'The random extra pause',
  send_delay_seconds: 'The delay between sends',
  'send_window.days': 'The days of the send window',
  'send_window.end': 'The end of the send window',
  'send_window.start': 'The start of the send window',
  'send_window.timezone': 'The time zone of the send window',
  sim_selection: 'The SIM for texts that name none',
  sim_subscription_id: 'The SIM',
  to: 'The recipients',
  url: 'The URL',
};

/** `body.to[2]` → `to`: the field a form shows. */
const fieldName = (field: string) => field.replace(/^(body|query)\./, '').replace(/\[\d+\]$/, '');

/** One field error in the words of the form: "The send time must be in the future." */
export function plainFieldMessage(field: string, message: string): string {
  const name = fieldName(field);
  const raw = field.replace(/^(body|query)\./, '');
  const words = FIELD_WORDS[name] ?? name.replace(/[_.]/g, ' ');
  let rest = message.startsWith(raw)
    ? message.slice(raw.length)
    : message.startsWith(name)
      ? message.slice(name.length)
      : ` ${message}`;
  rest = rest
    .replace(/^ must be at least 1 characters?$/, ' is required')
    .replace(/^ is a required field$/, ' is required')
    .replace(/ 1 characters\b/, ' 1 character');
  const text = `${words}${rest}`.trim();
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

/** Thrown by `ok()` so screens can show the API's own message and per-field errors. */
export class ApiFailure extends Error {
  constructor(
    readonly problem: ApiError,
    readonly response?: Response,
  ) {
    // A refused form reads as what to fix, not "The request is invalid.".
    super(
      problem.errors?.length
        ? problem.errors.map((e) => plainFieldMessage(e.field, e.message)).join(' ')
        : problem.message,
    );
  }
  /** The plain-words error of one field (`name`, or `to` for `body.to[1]`), if the API named it. */
  field(name: string): string | undefined {
    const error = this.problem.errors?.find((e) => fieldName(e.field) === name || e.field === name);
    return error && plainFieldMessage(error.field, error.message);
  }
  /** The refusal less the errors of `fields` (said beside their inputs); empty when nothing is left. */
  except(fields: string[]): string {
    if (!this.problem.errors?.length || fields.length === 0) return this.message;
    return this.problem.errors
      .filter((e) => !fields.some((name) => fieldName(e.field) === name || e.field === name))
      .map((e) => plainFieldMessage(e.field, e.message))
      .join(' ');
  }
  get retryAfterSeconds(): number | undefined {
    const value = Number(this.response?.headers.get('Retry-After'));
    return Number.isFinite(value) && value > 0 ? value : undefined;
  }
}

function asProblem(error: unknown, response: Response): ApiError {
  if (error && typeof error === 'object' && 'message' in error && 'code' in error) return error as ApiError;
  return { code: 'unexpected', message: `The server answered ${response.status}.`, status: response.status };
}

/**
 * Fired when the API says the session is gone (signed out elsewhere, expired): the app goes back to
 * sign-in and from there to the screen it was on.
 */
export const SESSION_ENDED = 'session-ended';

/** Unwraps an openapi-fetch result: the data, or an ApiFailure with the error body. */
export async function ok<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  let result: { data?: T; error?: unknown; response: Response };
  try {
    result = await call;
  } catch {
    throw new ApiFailure({ code: 'network', message: 'The server could not be reached.', status: 0 });
  }
  if (result.error !== undefined || !result.response.ok) {
    const failure = new ApiFailure(asProblem(result.error, result.response), result.response);
    // A wrong password at sign-in is `invalid_credentials`; `unauthenticated` means no session.
    if (failure.problem.code === 'unauthenticated') window.dispatchEvent(new Event(SESSION_ENDED));
    throw failure;
  }
  return result.data as T;
}

export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
