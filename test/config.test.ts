import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
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
