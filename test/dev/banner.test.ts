import { describe, expect, it } from 'vitest';
import { startBanner } from '../../src/dev/banner';

describe('the start banner', () => {
  const parts = {
    listenUrl: 'http://localhost:3000',
    temporalAddress: '127.0.0.1:7233',
    temporalUiUrl: 'http://127.0.0.1:8233',
    metricsUrl: 'http://127.0.0.1:9464/metrics',
    dataDir: '/srv/gateway/.data',
  };

  it('names PUBLIC_URL as the API, and where the process listens when that is elsewhere', () => {
    const banner = startBanner({ ...parts, publicUrl: 'https://sms.example.com' });
    expect(banner).toContain(
      '  API          https://sms.example.com  (listening on http://localhost:3000, readiness: http://localhost:3000/readyz)',
    );
    expect(banner).not.toMatch(/API {10}http:\/\/localhost/);
    expect(banner).toContain('  Temporal UI  http://127.0.0.1:8233');
    expect(banner).toContain('  Metrics      http://127.0.0.1:9464/metrics');
  });

  it('says it once when PUBLIC_URL is where it listens', () => {
    const banner = startBanner({ ...parts, publicUrl: 'http://localhost:3000', temporalUiUrl: undefined });
    expect(banner).toContain('  API          http://localhost:3000  (readiness: http://localhost:3000/readyz)');
    expect(banner).not.toContain('Temporal UI');
  });
});
