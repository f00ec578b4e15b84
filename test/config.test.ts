import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError, envSchema, loadConfig, temporalCacheDir } from '../src/config';

describe('config', () => {
  it('fills the documented defaults', () => {
    const config = loadConfig({});
    expect(config.port).toBe(3000);
    expect(config.publicUrl).toBe('http://localhost:3000');
    expect(config.temporal).toMatchObject({ namespace: 'default', taskQueue: 'phone-gateway', address: undefined });
    expect(config.staleWindowMs).toBe(3_600_000);
    expect(config.offlineAfterMissedHeartbeats).toBe(2);
    expect(config.webhooks.retryScheduleMs).toEqual([
      60_000, 300_000, 900_000, 3_600_000, 10_800_000, 21_600_000, 43_200_000, 86_400_000,
    ]);
    expect(config.webhooks.allowPrivateNetworks).toBe(false);
    expect(config.defaultPlan).toBe('free');
    expect(config.databasePoolMax).toBe(10);
    expect(config.mms).toEqual({ quotaBytes: 100 * 1024 * 1024, retentionMs: 30 * 86_400_000 });
    expect(config.rateLimits).toEqual({ key: { perSecond: 50, burst: 100 }, device: { perSecond: 50, burst: 200 } });
    expect(config.temporal.cacheDir).toBe(path.join(homedir(), '.cache', 'phone-gateway'));
  });

  it('finds the Temporal servers where temporal/install.sh puts them', () => {
    expect(loadConfig({ PHONE_GATEWAY_CACHE: '/opt/pg-cache', XDG_CACHE_HOME: '/xdg' }).temporal.cacheDir).toBe(
      '/opt/pg-cache',
    );
    expect(loadConfig({ XDG_CACHE_HOME: '/xdg' }).temporal.cacheDir).toBe('/xdg/phone-gateway');
    expect(temporalCacheDir({ PHONE_GATEWAY_CACHE: '', XDG_CACHE_HOME: '/xdg' })).toBe('/xdg/phone-gateway');
  });

  it('reads values from the environment, treating empty ones as unset', () => {
    const config = loadConfig({
      PORT: '8080',
      PUBLIC_URL: 'https://sms.example.com/',
      STALE_WINDOW: '10m',
      WEBHOOK_RETRY_SCHEDULE: '1s,2s',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      TEMPORAL_ADDRESS: '',
      DATABASE_POOL_MAX: '4',
    });
    expect(config.port).toBe(8080);
    expect(config.databasePoolMax).toBe(4);
    expect(config.publicUrl).toBe('https://sms.example.com');
    expect(config.dashboardUrl).toBe('https://sms.example.com');
    expect(config.staleWindowMs).toBe(600_000);
    expect(config.webhooks.retryScheduleMs).toEqual([1000, 2000]);
    expect(config.webhooks.allowPrivateNetworks).toBe(true);
    expect(config.temporal.address).toBeUndefined();
  });

  it.each([
    ['PORT', 'eighty', /PORT/],
    ['STALE_WINDOW', 'soon', /STALE_WINDOW/],
    ['API_KEY_RATE_PER_SECOND', '0', /API_KEY_RATE_PER_SECOND/],
    ['DEVICE_RATE_BURST', '1.5', /DEVICE_RATE_BURST/],
    ['WEBHOOK_RETRY_SCHEDULE', '1m,,5m', /WEBHOOK_RETRY_SCHEDULE/],
    ['DATABASE_URL', 'mysql://x', /DATABASE_URL/],
    ['TEMPORAL_ADDRESS', 'localhost', /TEMPORAL_ADDRESS/],
    ['TRUST_PROXY', 'maybe', /TRUST_PROXY/],
    ['LOG_LEVEL', 'loud', /LOG_LEVEL/],
  ])('rejects a bad %s with one line naming it', (name, value, pattern) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    try {
      loadConfig({ [name]: value });
    } catch (error) {
      expect((error as Error).message).toMatch(pattern);
      expect((error as Error).message).not.toContain('\n');
    }
  });

  it('never echoes the rejected value, which may be a secret', () => {
    expect(() => loadConfig({ DATABASE_URL: 'mysql://user:hunter2hunter2@db/x' })).toThrow(ConfigError);
    try {
      loadConfig({ DATABASE_URL: 'mysql://user:hunter2hunter2@db/x' });
    } catch (error) {
      expect((error as Error).message).not.toContain('hunter2');
    }
  });

  it('is frozen', () => {
    const config = loadConfig({});
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.temporal)).toBe(true);
  });

  /** The ConfigError's message for `env`, which must be one line. */
  const refusal = (env: Record<string, string>) => {
    try {
      loadConfig(env);
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).not.toContain('\n');
      return (error as Error).message;
    }
    throw new Error('the configuration was accepted');
  };

  describe('TLS to Temporal', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'config-tls-'));
    const file = (name: string, text: string) => {
      writeFileSync(path.join(dir, name), text);
      return path.join(dir, name);
    };
    const ca = file('ca.pem', 'CA PEM');
    const crt = file('client.pem', 'CLIENT PEM');
    const key = file('client.key', 'KEY PEM');
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('is off unless asked for', () => {
      expect(loadConfig({}).temporal.tls).toBeUndefined();
      expect(loadConfig({ TEMPORAL_TLS: 'false' }).temporal.tls).toBeUndefined();
    });

    it('is on with TEMPORAL_TLS=true alone: the system roots, no client certificate', () => {
      expect(loadConfig({ TEMPORAL_TLS: 'true', TEMPORAL_ADDRESS: 'temporal:7233' }).temporal.tls).toEqual({
        settings: ['TEMPORAL_TLS'],
        options: { serverRootCACertificate: undefined, clientCertPair: undefined, serverNameOverride: undefined },
      });
    });

    it('reads the CA, the client certificate and its key at start, and takes the server name', () => {
      const tls = loadConfig({
        TEMPORAL_ADDRESS: 'temporal:7233',
        TEMPORAL_TLS_CA_FILE: ca,
        TEMPORAL_TLS_CERT_FILE: crt,
        TEMPORAL_TLS_KEY_FILE: key,
        TEMPORAL_TLS_SERVER_NAME: 'temporal.internal',
      }).temporal.tls;
      expect(tls?.settings).toEqual([
        'TEMPORAL_TLS_CA_FILE',
        'TEMPORAL_TLS_CERT_FILE',
        'TEMPORAL_TLS_KEY_FILE',
        'TEMPORAL_TLS_SERVER_NAME',
      ]);
      expect(tls?.options.serverRootCACertificate?.toString()).toBe('CA PEM');
      expect(tls?.options.clientCertPair?.crt.toString()).toBe('CLIENT PEM');
      expect(tls?.options.clientCertPair?.key.toString()).toBe('KEY PEM');
      expect(tls?.options.serverNameOverride).toBe('temporal.internal');
    });

    it('is implied by an API key, which is kept for the connection', () => {
      const config = loadConfig({ TEMPORAL_API_KEY: 'cloud-key-123', TEMPORAL_ADDRESS: 'x.tmprl.cloud:7233' });
      expect(config.temporal.apiKey).toBe('cloud-key-123');
      expect(config.temporal.tls?.settings).toEqual(['TEMPORAL_API_KEY']);
    });

    it('refuses a certificate without its key (or a key alone), naming both', () => {
      for (const env of [
        { TEMPORAL_ADDRESS: 'temporal:7233', TEMPORAL_TLS_CERT_FILE: crt },
        { TEMPORAL_ADDRESS: 'temporal:7233', TEMPORAL_TLS_KEY_FILE: key },
      ] as Record<string, string>[]) {
        expect(refusal(env)).toMatch(/TEMPORAL_TLS_CERT_FILE and TEMPORAL_TLS_KEY_FILE/);
      }
    });

    it('refuses a file it cannot read, naming the setting', () => {
      expect(
        refusal({ TEMPORAL_ADDRESS: 'temporal:7233', TEMPORAL_TLS_CA_FILE: path.join(dir, 'missing.pem') }),
      ).toMatch(/TEMPORAL_TLS_CA_FILE: cannot read .*missing\.pem \(ENOENT\)/);
      expect(
        refusal({ TEMPORAL_ADDRESS: 'temporal:7233', TEMPORAL_TLS_CERT_FILE: crt, TEMPORAL_TLS_KEY_FILE: dir }),
      ).toMatch(/TEMPORAL_TLS_KEY_FILE: cannot read .*EISDIR/);
    });

    it("refuses TLS without TEMPORAL_ADDRESS: npm start's dev server has none", () => {
      expect(refusal({ TEMPORAL_TLS_CA_FILE: ca })).toMatch(/TEMPORAL_TLS_CA_FILE need TEMPORAL_ADDRESS/);
      expect(refusal({ TEMPORAL_TLS: 'true' })).toMatch(/TEMPORAL_TLS need TEMPORAL_ADDRESS/);
    });

    it('refuses TEMPORAL_TLS=false beside settings that need TLS', () => {
      expect(refusal({ TEMPORAL_TLS: 'false', TEMPORAL_TLS_CA_FILE: ca })).toMatch(
        /TEMPORAL_TLS is false but TEMPORAL_TLS_CA_FILE need/,
      );
    });
  });

  describe('TLS to Postgres, from DATABASE_URL', () => {
    it('refuses an sslmode node-postgres cannot honour, and a root certificate it cannot read', () => {
      expect(refusal({ DATABASE_URL: 'postgresql://u:p@db/x?sslmode=prefer' })).toMatch(
        /DATABASE_URL's sslmode must be one of disable, require, verify-ca, verify-full/,
      );
      expect(
        refusal({ DATABASE_URL: 'postgresql://u:p@db/x?sslmode=verify-full&sslrootcert=/nonexistent/ca.pem' }),
      ).toMatch(/DATABASE_URL's sslrootcert \/nonexistent\/ca\.pem cannot be read \(ENOENT\)/);
    });
  });

  describe('in production', () => {
    const KEY = Buffer.alloc(32, 7).toString('base64');
    const safe = {
      NODE_ENV: 'production',
      SECRETS_KEY: KEY,
      DATABASE_URL: 'postgresql://gateway:Vq3x9-long-random-password@db:5432/phone_gateway',
      PUBLIC_URL: 'https://sms.example.com',
    };

    it('accepts a safe configuration, and a loopback PUBLIC_URL over http', () => {
      expect(loadConfig(safe).env).toBe('production');
      for (const local of ['http://localhost:3000', 'http://127.0.0.1:3001', 'http://[::1]:3000']) {
        expect(loadConfig({ ...safe, PUBLIC_URL: local }).publicUrl).toBe(local);
      }
      const { PUBLIC_URL: _, ...defaulted } = safe;
      expect(loadConfig(defaulted).publicUrl).toBe('http://localhost:3000');
    });

    it('refuses each unsafe setting, every one named in one line', () => {
      const message = refusal({
        NODE_ENV: 'production',
        DATABASE_URL: 'postgresql://gateway:gateway@db:5432/phone_gateway',
        PUBLIC_URL: 'http://sms.example.com',
      });
      expect(message).toMatch(/^Unsafe configuration for production/);
      expect(message).toMatch(/SECRETS_KEY is not set/);
      expect(message).toMatch(/DATABASE_URL's password is a well-known default/);
      expect(message).toMatch(/PUBLIC_URL is not https.*ALLOW_INSECURE_PUBLIC_URL=true/);
    });

    it.each([
      ['an empty password', 'postgresql://gateway@db/x', /password is empty/],
      ['postgres', 'postgresql://app:postgres@db/x', /well-known default/],
      ['Password, whatever its case', 'postgresql://app:Password@db/x', /well-known default/],
      ['changeme', 'postgresql://app:changeme@db/x', /well-known default/],
      ['temporal', 'postgresql://app:temporal@db/x', /well-known default/],
      ['the user name', 'postgresql://smsgw:smsgw@db/x', /well-known default/],
    ])('refuses a database password that is %s, never echoing it', (_name, url, pattern) => {
      const message = refusal({ ...safe, DATABASE_URL: url });
      expect(message).toMatch(pattern);
      expect(message).not.toMatch(/changeme|smsgw|Password@/);
    });

    it('takes a plain-http PUBLIC_URL only when told it is meant', () => {
      expect(refusal({ ...safe, PUBLIC_URL: 'http://10.0.0.5:3000' })).toMatch(/PUBLIC_URL is not https/);
      expect(
        loadConfig({ ...safe, PUBLIC_URL: 'http://10.0.0.5:3000', ALLOW_INSECURE_PUBLIC_URL: 'true' }).publicUrl,
      ).toBe('http://10.0.0.5:3000');
    });

    it('leaves development and tests as easy as they were', () => {
      for (const NODE_ENV of ['development', 'test']) {
        expect(loadConfig({ NODE_ENV, PUBLIC_URL: 'http://sms.example.com' }).env).toBe(NODE_ENV);
      }
    });
  });

  describe('.env.example', () => {
    // Lines such as `# PORT=3000`: each variable once, with its default (empty where it has none).
    const listed = new Map(
      readFileSync(path.join(__dirname, '..', '.env.example'), 'utf8')
        .split('\n')
        .map((line) => /^# ([A-Z][A-Z0-9_]*)=(.*)$/.exec(line))
        .filter((match) => match !== null)
        .map((match) => [match[1], match[2]] as const),
    );
    const fields = envSchema.describe().fields as Record<string, { default?: unknown }>;

    it('lists every variable config.ts reads, and no other', () => {
      expect([...listed.keys()].sort()).toEqual(Object.keys(fields).sort());
    });

    it("gives each one config.ts's default", () => {
      for (const [name, value] of listed) {
        const fallback = fields[name]?.default;
        expect(value, name).toBe(fallback === undefined ? '' : String(fallback));
      }
    });
  });
});
