// DATABASE_URL's sslmode and sslrootcert, honoured by the ORM's connections (which MikroORM alone
// would drop), against a real Postgres serving TLS with a certificate of a test CA.
import { chmodSync, chownSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { MikroORM } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acquireConnection, releaseConnection } from '../../src/db/connection';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../src/dev/embedded';
import { openOrm } from '../../src/db/orm';
import { query, sql } from '../../src/db/sql';
import { freePort } from '../support/net';
import { createCa, issueCert } from '../support/tls';

describe('Postgres over TLS (DATABASE_URL sslmode)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'pg-tls-'));
  const file = (name: string) => path.join(dir, name);
  let postgres: EmbeddedPostgres;
  let base: URL;
  const opened: MikroORM[] = [];

  beforeAll(async () => {
    const ca = await createCa('phone-gateway test Postgres CA');
    const other = await createCa('some other CA');
    // Named localhost only (no IP address): verify-full by 127.0.0.1 must then fail on the name.
    const server = await issueCert(ca, { commonName: 'localhost', dns: ['localhost'], server: true });
    writeFileSync(file('ca.pem'), ca.cert);
    writeFileSync(file('other-ca.pem'), other.cert);
    writeFileSync(file('server.pem'), server.cert);
    writeFileSync(file('server.key'), server.key, { mode: 0o600 });
    chmodSync(dir, 0o755);
    if (process.getuid?.() === 0) {
      // Postgres runs as the postgres user here (src/dev/embedded.ts) and wants its key its own, 0600.
      const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
      chownSync(file('server.key'), id('-u'), id('-g'));
    }
    postgres = await startEmbeddedPostgres({
      dir: file('data'),
      port: await freePort(),
      database: 'tls_test',
      persistent: false,
      settings: ['ssl=on', `ssl_cert_file=${file('server.pem')}`, `ssl_key_file=${file('server.key')}`],
    });
    base = new URL(postgres.url);
  }, 120_000);

  afterAll(async () => {
    for (const orm of opened) await orm.close().catch(() => undefined);
    await postgres?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const url = (host: string, params: Record<string, string>) => {
    const u = new URL(base);
    u.hostname = host;
    for (const [name, value] of Object.entries(params)) u.searchParams.set(name, value);
    return u.toString();
  };

  /** Whether the ORM's session is encrypted, as the server sees it. */
  async function sessionSsl(databaseUrl: string): Promise<boolean> {
    const orm = await openOrm(databaseUrl);
    opened.push(orm);
    const [row] = await query<{ ssl: boolean }>(
      orm.em.fork(),
      sql`select ssl from pg_stat_ssl where pid = pg_backend_pid()`,
    );
    return row.ssl;
  }

  it('connects with verify-full and the right CA, encrypted', async () => {
    expect(await sessionSsl(url('localhost', { sslmode: 'verify-full', sslrootcert: file('ca.pem') }))).toBe(true);
  });

  it('is plain text without sslmode, as before', async () => {
    expect(await sessionSsl(url('localhost', {}))).toBe(false);
  });

  it('gives the LISTEN/NOTIFY connection, borrowed from the same pool, the same TLS', async () => {
    const orm = await openOrm(url('localhost', { sslmode: 'verify-full', sslrootcert: file('ca.pem') }));
    opened.push(orm);
    const connection = await acquireConnection(orm);
    try {
      const result = await connection.query('select ssl from pg_stat_ssl where pid = pg_backend_pid()');
      expect(result.rows[0]).toEqual({ ssl: true });
    } finally {
      await releaseConnection(orm, connection);
    }
  });

  it('refuses a server certificate another CA signed', async () => {
    await expect(
      sessionSsl(url('localhost', { sslmode: 'verify-full', sslrootcert: file('other-ca.pem') })),
    ).rejects.toThrow(/self[- ]signed|unable to verify|certificate/i);
  });

  it('refuses a certificate that does not name the host with verify-full, and takes it with verify-ca', async () => {
    await expect(sessionSsl(url('127.0.0.1', { sslmode: 'verify-full', sslrootcert: file('ca.pem') }))).rejects.toThrow(
      /does not match|altnames|IP: 127\.0\.0\.1/i,
    );
    expect(await sessionSsl(url('127.0.0.1', { sslmode: 'verify-ca', sslrootcert: file('ca.pem') }))).toBe(true);
    await expect(
      sessionSsl(url('127.0.0.1', { sslmode: 'verify-ca', sslrootcert: file('other-ca.pem') })),
    ).rejects.toThrow(/self[- ]signed|unable to verify|certificate/i);
  });
});
