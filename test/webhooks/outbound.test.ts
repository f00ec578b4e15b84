import { Agent, createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { generate } from 'selfsigned';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isForbiddenAddress, postOnce, urlProblem } from '../../src/webhooks/outbound';
import { startReceiver, type Receiver } from './receiver';

const post = (url: string, extra: Partial<Parameters<typeof postOnce>[0]> = {}) =>
  postOnce({
    url,
    body: '{"hello":"world"}',
    headers: { 'Content-Type': 'application/json' },
    timeoutMs: 5000,
    allowPrivateNetworks: true,
    ...extra,
  });

describe('outbound webhook requests', () => {
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(() => receiver?.close());

  it.each([
    ['127.0.0.1', true],
    ['127.255.0.9', true],
    ['10.1.2.3', true],
    ['172.16.0.1', true],
    ['172.31.255.255', true],
    ['192.168.1.1', true],
    ['169.254.169.254', true],
    ['100.100.100.200', true],
    ['0.0.0.0', true],
    ['224.0.0.1', true],
    ['255.255.255.255', true],
    ['::1', true],
    ['::', true],
    ['fe80::1', true],
    ['fd00:ec2::254', true],
    ['ff02::1', true],
    ['::ffff:127.0.0.1', true],
    ['::ffff:10.0.0.1', true],
    ['not-an-ip', true],
    ['8.8.8.8', false],
    ['93.184.216.34', false],
    ['172.32.0.1', false],
    ['2606:4700:4700::1111', false],
    ['::ffff:8.8.8.8', false],
  ])('judges %s forbidden: %s', (address, forbidden) => {
    expect(isForbiddenAddress(address)).toBe(forbidden);
  });

  // Every IPv6 spelling that carries an IPv4 address is judged by that address.
  it.each([
    ['IPv4-mapped', '::ffff:7f00:1', '::ffff:808:808'],
    ['IPv4-mapped (SIIT, RFC 6145)', '::ffff:0:a00:1', '::ffff:0:808:808'],
    ['IPv4-compatible', '::7f00:1', '::808:808'],
    ['IPv4-compatible, dotted', '::169.254.169.254', '::8.8.8.8'],
    ['6to4', '2002:7f00:1::', '2002:808:808::1'],
    ['6to4 of a private network', '2002:c0a8:101::1', '2002:808:808::1'],
    ['NAT64', '64:ff9b::7f00:1', '64:ff9b::808:808'],
    ['NAT64 of cloud metadata', '64:ff9b::a9fe:a9fe', '64:ff9b::808:808'],
    // Teredo: 2001:0:<server>:<flags>:<port>:<client, inverted>; ~80ff:fffe is 127.0.0.1.
    ['Teredo client', '2001:0:4136:e378:8000:63bf:80ff:fffe', '2001:0:4136:e378:8000:63bf:f7f7:f7f7'],
    ['Teredo server', '2001:0:a00:1:8000:63bf:f7f7:f7f7', '2001:0:4136:e378:8000:63bf:f7f7:f7f7'],
  ])('judges %s addresses by the IPv4 address they embed', (_form, internal, external) => {
    expect(isForbiddenAddress(internal)).toBe(true);
    expect(isForbiddenAddress(external)).toBe(false);
  });

  it.each([
    '[::7f00:1]',
    '[::127.0.0.1]',
    '[2002:7f00:1::]',
    '[64:ff9b::7f00:1]',
    '[::ffff:127.0.0.1]',
    '[2001:0:4136:e378:8000:63bf:80ff:fffe]',
  ])('refuses https://%s/ at creation and at every attempt', async (host) => {
    expect(await urlProblem(`https://${host}/hook`, false)).toMatch(/private/);
    const attempt = await post(`https://${host}/hook`, { allowPrivateNetworks: false });
    expect(attempt).toMatchObject({ status: null, error: expect.stringMatching(/private or reserved/) });
  });

  it.each([
    ['64:ff9b:1::a00:1', true], // local-use NAT64 (RFC 8215): an operator's own network
    ['2001:db8::1', true],
    ['100::1', true],
    ['fe80::1%eth0', true],
    ['2002:808:808::1', false],
  ])('judges %s forbidden: %s', (address, forbidden) => {
    expect(isForbiddenAddress(address)).toBe(forbidden);
  });

  it.each([
    ['198.18.0.1', true],
    ['192.0.2.1', true],
    ['198.51.100.7', true],
    ['203.0.113.9', true],
    ['100.64.0.1', true],
  ])('judges %s forbidden: %s', (address, forbidden) => {
    expect(isForbiddenAddress(address)).toBe(forbidden);
  });

  it('accepts only https URLs with public addresses unless private networks are allowed', async () => {
    expect(await urlProblem('http://8.8.8.8/hook', false)).toMatch(/https/);
    expect(await urlProblem('not a url', false)).toMatch(/URL/);
    expect(await urlProblem('https://user:pw@8.8.8.8/hook', false)).toMatch(/credentials/);
    expect(await urlProblem('https://8.8.8.8/hook', false)).toBeNull();
    expect(await urlProblem('https://127.0.0.1/hook', false)).toMatch(/private/);
    expect(await urlProblem('https://[::1]/hook', false)).toMatch(/private/);
    expect(await urlProblem('https://169.254.169.254/latest/meta-data', false)).toMatch(/private/);
    // A name is judged by what it resolves to.
    expect(await urlProblem('https://localhost/hook', false)).toMatch(/private/);
    expect(await urlProblem('https://127.0.0.1/hook', true)).toBeNull();
    expect(await urlProblem('https://localhost/hook', true)).toBeNull();
  });

  it('posts the exact body over TLS trusted through NODE_EXTRA_CA_CERTS', async () => {
    const before = receiver.requests.length;
    const result = await post(receiver.url);
    expect(result).toMatchObject({ status: 200, excerpt: 'ok', error: null });
    const request = receiver.requests[before];
    expect(request.raw).toBe('{"hello":"world"}');
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['content-length']).toBe('17');
    // By name as well: the certificate names localhost, and the lookup is ours.
    expect(await post(`https://localhost:${receiver.port}/hook`)).toMatchObject({ status: 200 });
  });

  it('refuses a certificate the trusted CAs did not sign', async () => {
    expect(process.env.NODE_TLS_REJECT_UNAUTHORIZED).not.toBe('0');
    const stranger = await generate([{ name: 'commonName', value: 'localhost' }], {
      keyType: 'ec',
      algorithm: 'sha256',
    });
    const server = createServer({ key: stranger.private, cert: stranger.cert }, (_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const result = await post(`https://localhost:${(server.address() as AddressInfo).port}/hook`);
      expect(result).toMatchObject({ status: null, error: expect.stringMatching(/certificate/i) });
    } finally {
      server.close();
    }
  });

  it('refuses private addresses at connect time, by literal and by name, when not allowed', async () => {
    const before = receiver.requests.length;
    const literal = await post(receiver.url, { allowPrivateNetworks: false });
    expect(literal).toMatchObject({ status: null, error: expect.stringMatching(/private or reserved/) });
    const named = await post(`https://localhost:${receiver.port}/hook`, { allowPrivateNetworks: false });
    expect(named).toMatchObject({ status: null, error: expect.stringMatching(/private or reserved/) });
    expect(receiver.requests.length).toBe(before);
  });

  it('reuses a connection of its agent for the next request, and checks the address of every new one', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const before = receiver.connections;
      for (let i = 0; i < 3; i++) expect(await post(receiver.url, { agent })).toMatchObject({ status: 200 });
      expect(receiver.connections - before).toBe(1);
      // A kept-alive agent does not carry a refused address through: the lookup is still ours.
      const named = await post(`https://localhost:${receiver.port}/hook`, { agent, allowPrivateNetworks: false });
      expect(named).toMatchObject({ status: null, error: expect.stringMatching(/private or reserved/) });
      // A body cut off at the bound is not left on a reused connection.
      receiver.respond = () => ({ status: 500, body: 'x'.repeat(5_000_000) });
      expect((await post(receiver.url, { agent })).excerpt).toHaveLength(1024);
      receiver.respond = () => ({ status: 200, body: 'ok' });
      expect(await post(receiver.url, { agent })).toMatchObject({ status: 200, excerpt: 'ok' });
    } finally {
      receiver.respond = () => ({ status: 200, body: 'ok' });
      agent.destroy();
    }
  });

  // The endpoint closes a kept-alive connection (its keep-alive timeout) just as the next request
  // takes it from the pool, before this side has read the close: under load, when the event loop
  // lags past the agent's own, shorter timer. The request then dies on the dead connection without
  // reaching the endpoint; it must not come back as an attempt the endpoint never saw.
  it('sends a request again on a new connection when its kept-alive one was closed by the endpoint', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      expect(await post(receiver.url, { agent })).toMatchObject({ status: 200 });
      // Back in the pool (the agent takes it back on a later tick).
      await new Promise((resolve) => setImmediate(resolve));
      const before = { requests: receiver.requests.length, connections: receiver.connections };
      // Both in one tick: nothing of the close is read before the request is written.
      receiver.closeIdle();
      const result = await post(receiver.url, { agent, body: '{"after":"close"}' });
      expect(result).toMatchObject({ status: 200, error: null });
      expect(receiver.requests.slice(before.requests).map((r) => r.raw)).toEqual(['{"after":"close"}']);
      expect(receiver.connections - before.connections).toBe(1);
    } finally {
      agent.destroy();
    }
  });

  it('does not follow redirects, bounds the body it reads, and keeps a short excerpt', async () => {
    receiver.respond = (request) =>
      request.raw.includes('redirect')
        ? { status: 302, headers: { location: 'https://127.0.0.1:1/elsewhere' } }
        : { status: 500, body: 'x'.repeat(5_000_000) };
    const redirect = await post(receiver.url, { body: '{"redirect":true}' });
    expect(redirect).toMatchObject({ status: 302, error: 'redirects are not followed' });
    const big = await post(receiver.url);
    expect(big.status).toBe(500);
    expect(big.excerpt).toHaveLength(1024);
    receiver.respond = () => ({ status: 200, body: 'ok' });
  });

  it('gives up after the timeout and reports connection failures as outcomes', async () => {
    receiver.respond = () => ({ status: 200, delayMs: 3000 });
    const slow = await post(receiver.url, { timeoutMs: 300 });
    expect(slow).toMatchObject({ status: null, error: 'no answer within 0.3 s' });
    expect(slow.durationMs).toBeLessThan(2000);
    receiver.respond = () => ({ status: 200, body: 'ok' });
    const refused = await post('https://127.0.0.1:1/hook');
    expect(refused).toMatchObject({ status: null, error: expect.stringMatching(/ECONNREFUSED/) });
    const plain = await post('http://127.0.0.1/hook');
    expect(plain).toMatchObject({ status: null, error: 'the URL is not https' });
  });
});
