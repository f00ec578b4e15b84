import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import path from 'node:path';
import { generate } from 'selfsigned';

export interface TestTls {
  /** PEM key and certificate of a server for localhost, 127.0.0.1 and ::1, signed by the test CA. */
  key: string;
  cert: string;
  /**
   * The test CA itself (PEM), for a server certificate under another name (serverTls) and for a
   * process that does not inherit NODE_EXTRA_CA_CERTS from here (a container) to trust.
   */
  ca: { key: string; cert: string };
}

/** A server certificate the test CA signed, for localhost, 127.0.0.1, ::1 and `names` (DNS names or IPs). */
export async function serverTls(
  ca: { key: string; cert: string },
  names: string[] = [],
): Promise<{ key: string; cert: string }> {
  const now = new Date(Date.now() - 86_400_000);
  const until = new Date(Date.now() + 30 * 86_400_000);
  const all = [...new Set(['localhost', '127.0.0.1', '::1', ...names])];
  const server = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notBeforeDate: now,
    notAfterDate: until,
    ca: { key: ca.key, cert: ca.cert },
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: all.map((name) => (isIP(name) ? { type: 7, ip: name } : { type: 2, value: name })),
      },
    ],
  });
  return { key: server.private, cert: server.cert };
}

/**
 * A throwaway certificate authority and a server certificate it signed, for the webhook receivers
 * of the tests. The CA is added to NODE_EXTRA_CA_CERTS (with whatever that already named), so
 * processes started from here on (the test forks) trust it like any public CA. Node reads the
 * variable at start only, which is why this runs in the global setup.
 */
export async function createTestTls(scratch: string): Promise<TestTls> {
  const now = new Date(Date.now() - 86_400_000);
  const until = new Date(Date.now() + 30 * 86_400_000);
  const ca = await generate([{ name: 'commonName', value: 'phone-gateway test CA' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notBeforeDate: now,
    notAfterDate: until,
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    ],
  });
  const server = await serverTls({ key: ca.private, cert: ca.cert });
  const existing = process.env.NODE_EXTRA_CA_CERTS;
  const bundle = path.join(scratch, `test-ca-${process.pid}.pem`);
  const inherited = existing && existsSync(existing) ? `${readFileSync(existing, 'utf8').trimEnd()}\n` : '';
  writeFileSync(bundle, inherited + ca.cert);
  process.env.NODE_EXTRA_CA_CERTS = bundle;
  return { ...server, ca: { key: ca.private, cert: ca.cert } };
}

export interface TestCa {
  key: string;
  cert: string;
}

const validity = () => ({
  notBeforeDate: new Date(Date.now() - 86_400_000),
  notAfterDate: new Date(Date.now() + 30 * 86_400_000),
});

/** A throwaway certificate authority of its own (not trusted by anything unless handed over). */
export async function createCa(commonName: string): Promise<TestCa> {
  const ca = await generate([{ name: 'commonName', value: commonName }], {
    keyType: 'ec',
    algorithm: 'sha256',
    ...validity(),
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    ],
  });
  return { key: ca.private, cert: ca.cert };
}

/**
 * A certificate `ca` signed: for a server (named by `dns` and `ips`) or a client (mTLS), or both.
 * Its key is PKCS#8 PEM.
 */
export async function issueCert(
  ca: TestCa,
  options: { commonName: string; dns?: string[]; ips?: string[]; server?: boolean; client?: boolean },
): Promise<{ key: string; cert: string }> {
  const altNames = [
    ...(options.dns ?? []).map((value) => ({ type: 2 as const, value })),
    ...(options.ips ?? []).map((ip) => ({ type: 7 as const, ip })),
  ];
  const issued = await generate([{ name: 'commonName', value: options.commonName }], {
    keyType: 'ec',
    algorithm: 'sha256',
    ...validity(),
    ca: { key: ca.key, cert: ca.cert },
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: Boolean(options.server), clientAuth: Boolean(options.client) },
      ...(altNames.length > 0 ? [{ name: 'subjectAltName' as const, altNames }] : []),
    ],
  });
  return { key: issued.private, cert: issued.cert };
}
