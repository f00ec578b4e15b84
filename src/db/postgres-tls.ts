import { readFileSync } from 'node:fs';
import { checkServerIdentity, type ConnectionOptions } from 'node:tls';

// TLS to Postgres, from DATABASE_URL's own libpq parameters: `?sslmode=verify-full&sslrootcert=/ca.pem`
// (and `sslcert`/`sslkey` for a client certificate). MikroORM builds its connection from the URL's
// host, port, user, password and database only, so without this they would be dropped silently; the
// ORM's pool is the only way the service reaches Postgres (LISTEN/NOTIFY borrows one of its
// connections), so every connection gets them.

/** The modes libpq knows that can be honoured exactly; `allow` and `prefer` fall back to plain text, which node-postgres cannot. */
const MODES = ['disable', 'require', 'verify-ca', 'verify-full'] as const;
export type SslMode = (typeof MODES)[number];

export class PostgresTlsError extends Error {}

function readPem(file: string, parameter: string): Buffer {
  try {
    return readFileSync(file);
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new PostgresTlsError(`DATABASE_URL's ${parameter} ${file} cannot be read (${reason})`);
  }
}

/**
 * node-postgres's `ssl` option for a DATABASE_URL: false without `sslmode` (or with `disable`). Throws
 * PostgresTlsError naming the parameter for an unknown mode or a file that cannot be read.
 *   require      encrypted, the server's certificate not checked (as libpq; with sslrootcert: verify-ca)
 *   verify-ca    its chain checked against sslrootcert (else the system's roots), not its host name
 *   verify-full  the chain and the host name checked
 */
export function postgresSsl(databaseUrl: string): false | ConnectionOptions {
  const parsed = new URL(databaseUrl);
  const params = parsed.searchParams;
  const given = params.get('sslmode') ?? undefined;
  const rootcert = params.get('sslrootcert') || undefined;
  const cert = params.get('sslcert') || undefined;
  const key = params.get('sslkey') || undefined;
  if (given !== undefined && !(MODES as readonly string[]).includes(given)) {
    throw new PostgresTlsError(`DATABASE_URL's sslmode must be one of ${MODES.join(', ')}`);
  }
  if (Boolean(cert) !== Boolean(key)) {
    throw new PostgresTlsError("DATABASE_URL's sslcert and sslkey go together: set both or neither");
  }
  let mode = (given ?? 'disable') as SslMode;
  if (mode === 'disable') {
    if (rootcert || cert) throw new PostgresTlsError("DATABASE_URL's sslrootcert, sslcert and sslkey need an sslmode");
    return false;
  }
  if (mode === 'require' && rootcert) mode = 'verify-ca';
  const ssl: ConnectionOptions = { rejectUnauthorized: mode !== 'require' };
  if (rootcert && rootcert !== 'system') ssl.ca = readPem(rootcert, 'sslrootcert');
  if (cert && key) {
    ssl.cert = readPem(cert, 'sslcert');
    ssl.key = readPem(key, 'sslkey');
  }
  // The chain is still verified (rejectUnauthorized); only the name is not.
  if (mode === 'verify-ca') ssl.checkServerIdentity = () => undefined;
  if (mode === 'verify-full') {
    // Against the URL's host, always: node-postgres gives TLS no server name for an IP address, and
    // Node then checks the certificate against "localhost".
    const host = decodeURIComponent(parsed.hostname).replace(/^\[(.*)\]$/, '$1');
    ssl.checkServerIdentity = (_name, cert) => checkServerIdentity(host, cert);
  }
  return ssl;
}
