import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/lib/logger';

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { logger: createLogger('info', stream), lines };
}

describe('logger', () => {
  it('redacts credentials, codes and phone numbers wherever a caller puts them', () => {
    const { logger, lines } = capture();
    logger.info(
      {
        password: 'hunter2hunter2',
        to: ['+15550001111'],
        req: { headers: { authorization: 'Bearer sk_live_abc', cookie: 'sid=xyz', 'x-api-key': 'sk_abc' } },
        body: { code: '123456', token: 'devtok', secret: 'whsec' },
        // TEMPORAL_API_KEY, as config.temporal or the connection's options carry it.
        apiKey: 'temporal-cloud-key-1',
        temporal: { address: 'x.tmprl.cloud:7233', apiKey: 'temporal-cloud-key-2' },
      },
      'request',
    );
    const text = lines.join('');
    for (const secret of [
      'hunter2hunter2',
      '+15550001111',
      'sk_live_abc',
      'sid=xyz',
      'sk_abc',
      '123456',
      'devtok',
      'whsec',
      'temporal-cloud-key-1',
      'temporal-cloud-key-2',
    ]) {
      expect(text).not.toContain(secret);
    }
    expect(text).toContain('[redacted]');
    expect(JSON.parse(text)).toMatchObject({ msg: 'request', service: 'phone-gateway' });
  });
});
