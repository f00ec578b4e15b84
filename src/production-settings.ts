// The rules a production start must pass (src/config.ts applies them when NODE_ENV=production): kept
// apart from the schema so each reads on its own.

/** The settings the rules read, as the environment gives them. */
export interface ProductionSettings {
  SECRETS_KEY?: string;
  DATABASE_URL?: string;
  PUBLIC_URL?: string;
  PORT: number;
  ALLOW_INSECURE_PUBLIC_URL: boolean;
  WEBHOOK_ALLOW_LOOPBACK_HTTP?: boolean;
}

/** Passwords of examples, images and tutorials: the first ones tried against an exposed Postgres. */
const DEFAULT_PASSWORDS = new Set([
  'gateway',
  'postgres',
  'password',
  'temporal',
  'changeme',
  'secret',
  'admin',
  'root',
]);

const isLoopback = (host: string) =>
  host === 'localhost' || host.endsWith('.localhost') || /^127(\.\d{1,3}){3}$/.test(host) || host === '[::1]';

/**
 * In production (NODE_ENV=production: npm run api, worker, migrate, the image), settings that are
 * fine on a laptop and unsafe on a server stop the start, every one named in one line. Values are
 * never echoed.
 */
export function productionProblems(env: ProductionSettings): string[] {
  const problems: string[] = [];
  if (!env.SECRETS_KEY) {
    problems.push('SECRETS_KEY is not set (webhook secrets would be stored as given; openssl rand -base64 32)');
  }
  if (env.DATABASE_URL) {
    const parsed = new URL(env.DATABASE_URL);
    const password = decodeURIComponent(parsed.password);
    const user = decodeURIComponent(parsed.username);
    if (!password) problems.push("DATABASE_URL's password is empty");
    else if (DEFAULT_PASSWORDS.has(password.toLowerCase()) || password === user) {
      problems.push("DATABASE_URL's password is a well-known default (set a long random one)");
    }
  }
  const publicUrl = new URL(env.PUBLIC_URL ?? `http://localhost:${env.PORT}`);
  if (publicUrl.protocol !== 'https:' && !isLoopback(publicUrl.hostname) && !env.ALLOW_INSECURE_PUBLIC_URL) {
    problems.push(
      'PUBLIC_URL is not https (sessions and keys would cross the network in the clear; set ALLOW_INSECURE_PUBLIC_URL=true if TLS ends in front of it on a trusted network)',
    );
  }
  if (env.WEBHOOK_ALLOW_LOOPBACK_HTTP) {
    problems.push(
      'WEBHOOK_ALLOW_LOOPBACK_HTTP is on (any account could make the server post to its own loopback services)',
    );
  }
  return problems;
}
