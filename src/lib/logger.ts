import pino, { type Logger } from 'pino';

export type { Logger };

// Whatever a caller passes, these never reach the log: credentials, codes and phone numbers.
const REDACT = [
  'password',
  'current_password',
  'new_password',
  'token',
  'device_token',
  'push_token',
  'secret',
  'key',
  'apiKey',
  'code',
  'cookie',
  'authorization',
  'to',
  'recipient',
  'sender',
  '*.password',
  '*.token',
  '*.secret',
  '*.key',
  '*.apiKey',
  '*.code',
  '*.cookie',
  '*.authorization',
  '*["x-api-key"]',
  '*["set-cookie"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
];

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'phone-gateway' },
      redact: { paths: REDACT, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}
