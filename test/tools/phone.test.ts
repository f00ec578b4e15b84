import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCli, UsageError } from '../../tools/phone/args';
import { FAILURE_CODE, SimulatedPhone } from '../../tools/phone/phone';
import { runPhones } from '../../tools/phone/run';
import { createKey, json, registerAccount } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/app';
import { readJson } from '../support/http';
import { createTimeSkippingEnv } from '../support/temporal';
import { until } from '../support/stack';

const root = path.resolve(__dirname, '..', '..');

/**
 * A proxy in front of the app that can make chosen requests fail as an outage does: every other one
 * has its connection cut, the rest get 503.
 */
async function startFlakyProxy(target: string) {
  const refused: string[] = [];
  let refuse: (req: IncomingMessage) => boolean = () => false;
  const server: Server = createServer((req, res) => {
    if (refuse(req)) {
      refused.push(`${req.method} ${req.url}`);
      req.resume();
      if (refused.length % 2 === 1) res.destroy();
      else
        res
          .writeHead(503, { 'content-type': 'application/json' })
          .end(JSON.stringify({ code: 'unavailable', message: 'Service unavailable.', status: 503 }));
      return;
    }
    const upstream = httpRequest(new URL(req.url!, target), { method: req.method, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode!, up.headers);
      up.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    refused,
    refuseWhen(rule: (req: IncomingMessage) => boolean) {
      refuse = rule;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('phone simulator command line', () => {
  it('talks to the service on PORT, as npm start does, unless told a server', () => {
    expect(parseCli(['--code', 'ABCD2345'], { PORT: '4100' })).toMatchObject({ server: 'http://localhost:4100' });
    expect(parseCli(['--code', 'ABCD2345', '--server', 'http://example.test:5000'], { PORT: '4100' })).toMatchObject({
      server: 'http://example.test:5000',
    });
    expect(parseCli(['--code', 'ABCD2345'], { PORT: 'eighty' })).toMatchObject({ server: 'http://localhost:3000' });
  });

  it('reads codes, pair URLs, inbound texts and numbers, and refuses what cannot work', () => {
    const pairUrl = `phonegateway://pair?${new URLSearchParams({ code: 'ABCD2345', server: 'http://example.test:3000' })}`;
    expect(parseCli(['--pair-url', pairUrl])).toMatchObject({
      server: 'http://example.test:3000',
      codes: ['ABCD2345'],
      phones: 1,
    });
    expect(
      parseCli([
        '--codes',
        'A,B, C',
        '--inbound',
        '+15551234567 hello there',
        '--inbound',
        '+15550000000 second',
        '--failure-ratio',
        '0.25',
        '--heartbeat-seconds',
        '10',
      ], {}),
    ).toMatchObject({
      server: 'http://localhost:3000',
      codes: ['A', 'B', 'C'],
      phones: 3,
      failureRatio: 0.25,
      heartbeatSeconds: 10,
      pollSeconds: 5,
      inbound: [
        { sender: '+15551234567', text: 'hello there' },
        { sender: '+15550000000', text: 'second' },
      ],
    });
    expect(parseCli(['--api-key', 'sk_x', '--phones', '4'])).toMatchObject({ apiKey: 'sk_x', phones: 4, codes: [] });
    expect(parseCli(['--help'])).toBeNull();

    for (const argv of [
      [],
      ['--code', 'A', '--api-key', 'k'],
      ['--codes', 'A,B', '--phones', '3'],
      ['--code', 'A', '--failure-ratio', '2'],
      ['--code', 'A', '--poll-seconds', 'soon'],
      ['--code', 'A', '--inbound', 'no-text'],
      ['--code', 'A', '--server', 'ftp://x'],
      ['--pair-url', 'https://example.test/?code=A'],
      ['--code', 'A', '--unknown'],
    ]) {
      expect(() => parseCli(argv), argv.join(' ')).toThrow(UsageError);
    }
  });
});

describe('simulated phones against the API', () => {
  let env: TestWorkflowEnvironment;
  let app: TestApp;
  let key: string;
  const call = (method: string, p: string, body?: unknown) => app.fetch(p, json(method, body, { 'x-api-key': key }));

  beforeAll(async () => {
    // A real Temporal (no worker): sends start their batch workflow, pairings signal liveness.
    env = await createTimeSkippingEnv();
    // The test clock stands still, so request-rate buckets never refill: phones polling every 0.2 s
    // for a minute would run dry. This file tests the simulator, not the limits (test/http does).
    app = await startTestApp({
      temporal: env.client,
      env: { DEVICE_RATE_BURST: '1000000', API_KEY_RATE_BURST: '1000000' },
    });
    const account = await registerAccount(app, { verified: true, plan: 'business' });
    key = await createKey(app, account);
  });
  afterAll(async () => {
    await app?.close();
    await env?.teardown();
  });

  it('pairs several phones with codes it creates, forwards inbound texts from each and reports heartbeats', async () => {
    const lines: string[] = [];
    const options = parseCli([
      '--server',
      app.url,
      '--api-key',
      key,
      '--phones',
      '2',
      '--inbound',
      '+15551234567 hello there',
      '--poll-seconds',
      '0.2',
    ])!;
    const fleet = await runPhones(options, (line) => lines.push(line));
    try {
      const [one, two] = fleet.phones;
      expect(one.deviceId).toBeDefined();
      expect(one.deviceId).not.toBe(two.deviceId);
      expect(one.hardwareKey).not.toBe(two.hardwareKey);

      const devices = (await readJson(await call('GET', '/v1/devices'))).data;
      for (const phone of fleet.phones) {
        const device = devices.find((d: { id: string }) => d.id === phone.deviceId);
        expect(device).toMatchObject({ online: true, model: 'Virtual Phone', os_api_level: 34 });
        expect(device.sims).toEqual([expect.objectContaining({ subscription_id: 1 })]);
        expect(Object.keys(device.telemetry).sort()).toEqual(
          ['battery', 'locale', 'network', 'storage', 'timezone', 'uptime_seconds'].sort(),
        );
      }
      const inbound = (await readJson(await call('GET', '/v1/messages?direction=inbound'))).data;
      expect(inbound.map((m: { device_id: string }) => m.device_id).sort()).toEqual(
        [one.deviceId, two.deviceId].sort(),
      );
      expect(inbound.every((m: { sender: string; body: string }) => m.sender === '+15551234567')).toBe(true);
      expect(lines.filter((line) => line.startsWith('[phone 1] paired: device '))).toHaveLength(1);
      expect(lines.filter((line) => line.startsWith('[phone 2] heartbeat: online'))).toHaveLength(1);

      // Sends go through the outbox of the phone they name, and come back sent, then delivered.
      const sent = await readJson(
        await call('POST', '/v1/messages', {
          body: 'hi',
          to: ['+14155550101', '+14155550102'],
          device_id: two.deviceId,
        }),
      );
      const batch = await until('delivery', 30_000, async () => {
        const body = await readJson(await call('GET', `/v1/batches/${sent.batch.id}`));
        return body.batch.delivered_count === 2 ? body.batch : undefined;
      });
      expect(batch.status).toBe('completed');
      expect(lines.filter((line) => line.startsWith('[phone 2] delivered '))).toHaveLength(2);
      expect(lines.some((line) => line.startsWith('[phone 1] sent '))).toBe(false);
    } finally {
      await fleet.stop();
    }
    expect(lines.filter((line) => line.endsWith('] stopped'))).toHaveLength(2);
  });

  it('reports failures with an error code, goes silent on request and stops when unpaired', async () => {
    const lines: string[] = [];
    const code = (await readJson(await call('POST', '/v1/devices/pairing-codes'))).code;
    const phone = new SimulatedPhone({
      server: app.url,
      code,
      failureRatio: 1,
      heartbeatSeconds: 1,
      pollSeconds: 0.2,
      sentAfterMs: 0,
      stopHeartbeatsAfterSeconds: 1.5,
      log: (line) => lines.push(line),
    });
    await phone.start();
    try {
      const sent = await readJson(
        await call('POST', '/v1/messages', { body: 'x', to: ['+14155550103'], device_id: phone.deviceId }),
      );
      const message = await until('failure', 10_000, async () => {
        const body = await readJson(await call('GET', `/v1/messages/${sent.message_ids[0]}`));
        return body.message.status === 'failed' ? body.message : undefined;
      });
      expect(message.error_code).toBe(FAILURE_CODE);

      await until('silence', 5_000, () => (lines.some((l) => l.startsWith('heartbeats stopped')) ? true : undefined));
      const beats = lines.filter((line) => line.startsWith('heartbeat:')).length;
      expect(beats).toBeGreaterThanOrEqual(2);
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      expect(lines.filter((line) => line.startsWith('heartbeat:')).length).toBe(beats);

      expect((await call('DELETE', `/v1/devices/${phone.deviceId}`)).status).toBe(204);
      await until('the phone to notice', 5_000, () => (phone.stopped ? true : undefined));
      // Told on its live channel, or refused on its next request: either way it knows and stops.
      expect(lines.some((line) => line.includes('this phone is no longer paired; stopping'))).toBe(true);
    } finally {
      await phone.stop();
    }
  });

  it('sends each text once while its reports cannot get through, reports it again when handed out again, and catches up', async () => {
    const proxy = await startFlakyProxy(app.url);
    const lines: string[] = [];
    const code = (await readJson(await call('POST', '/v1/devices/pairing-codes'))).code;
    const phone = new SimulatedPhone({
      server: proxy.url,
      code,
      // Polling only: the outage is simulated on the proxy, and each fetch must hand messages out again.
      live: false,
      pollSeconds: 0.2,
      sentAfterMs: 0,
      deliveredAfterMs: 100,
      log: (line) => lines.push(line),
    });
    await phone.start();
    try {
      // Outbox fetches get through; every status report fails, as during an outage of the API.
      proxy.refuseWhen((req) => req.method === 'POST' && /\/status$/.test(req.url ?? ''));
      const sent = await readJson(
        await call('POST', '/v1/messages', {
          body: 'once only',
          to: ['+14155550111', '+14155550112', '+14155550113'],
          device_id: phone.deviceId,
        }),
      );
      const ids: string[] = sent.message_ids;
      // Unreported, each message stays in the outbox and is handed out again, several times.
      await expect
        .poll(() => ids.filter((id) => lines.filter((l) => l.startsWith(`${id} handed out again`)).length > 0).length)
        .toBe(3);
      await expect.poll(() => proxy.refused.length).toBeGreaterThanOrEqual(4);
      expect(phone.pendingReports).toBeGreaterThanOrEqual(3);
      for (const id of ids) {
        const { message } = await readJson(await call('GET', `/v1/messages/${id}`));
        expect(message.status).toBe('dispatched');
      }

      proxy.refuseWhen(() => false);
      await expect
        .poll(
          async () => {
            const statuses = await Promise.all(
              ids.map(async (id) => (await readJson(await call('GET', `/v1/messages/${id}`))).message.status),
            );
            return statuses;
          },
          { timeout: 45_000 },
        )
        // Reports back off up to 10 s apart while refused: catching up may take a few rounds of that.
        .toEqual(['delivered', 'delivered', 'delivered']);
      await expect.poll(() => phone.pendingReports, { timeout: 45_000 }).toBe(0);

      expect([...phone.sendCounts.keys()].sort()).toEqual([...ids].sort());
      expect([...phone.sendCounts.values()]).toEqual([1, 1, 1]);
      for (const id of ids) expect(lines.filter((l) => l.startsWith(`sent ${id} `))).toHaveLength(1);
      expect(lines.some((l) => /reports? for .* accepted after \d+ failed attempt/.test(l))).toBe(true);
    } finally {
      await phone.stop();
      await proxy.close();
    }
  });

  it('adds a random pause of up to send_delay_jitter_seconds between its sends', async () => {
    const sentAt: number[] = [];
    const code = (await readJson(await call('POST', '/v1/devices/pairing-codes'))).code;
    const phone = new SimulatedPhone({
      server: app.url,
      code,
      pollSeconds: 0.2,
      sentAfterMs: 0,
      // Every draw is half the range: a pause of exactly half the jitter.
      random: () => 0.5,
      log: (line) => {
        if (line.startsWith('sent ')) sentAt.push(Date.now());
      },
    });
    await phone.start();
    try {
      const patched = await call('PATCH', `/v1/devices/${phone.deviceId}`, { send_delay_jitter_seconds: 2 });
      expect((await readJson(patched)).device).toMatchObject({ send_delay_seconds: 0, send_delay_jitter_seconds: 2 });
      await until('the new setting', 10_000, () => (phone.device?.send_delay_jitter_seconds === 2 ? true : undefined));
      await call('POST', '/v1/messages', {
        body: 'jittered',
        to: ['+14155550121', '+14155550122', '+14155550123'],
        device_id: phone.deviceId,
      });
      await until('three sends', 15_000, () => (sentAt.length === 3 ? true : undefined));
      const gaps = sentAt.slice(1).map((at, i) => at - sentAt[i]);
      for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(950);
    } finally {
      await phone.stop();
    }
  });

  it('sends nothing again after it is killed with reports unsent: its state file remembers them', async () => {
    const proxy = await startFlakyProxy(app.url);
    const stateDir = await mkdtemp(path.join(tmpdir(), 'phone-state-'));
    const hardwareKey = `hw-crash-${randomUUID()}`;
    const outputs: string[] = [];
    const children: ChildProcess[] = [];
    // Polling only, every 0.2 s; sent at once, delivered 0.2 s later.
    const start = () => {
      const child = spawn(
        process.execPath,
        [
          ...['--import', 'tsx', 'tools/phone/cli.ts', '--api-key', key, '--server', proxy.url],
          ...['--hardware-key', hardwareKey, '--state-dir', stateDir, '--no-live', '--poll-seconds', '0.2'],
          ...['--sent-after-ms', '0', '--delivered-after-ms', '200'],
        ],
        { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      const index = outputs.push('') - 1;
      child.stdout.on('data', (chunk) => (outputs[index] += chunk));
      child.stderr.on('data', (chunk) => (outputs[index] += chunk));
      children.push(child);
      return { child, output: () => outputs[index] };
    };
    const sentLines = (id: string) =>
      outputs
        .join('')
        .split('\n')
        .filter((line) => line.includes(`] sent ${id} `));
    try {
      // Every status report fails, as during an outage of the API: the outcomes wait in the phone.
      proxy.refuseWhen((req) => req.method === 'POST' && /\/status$/.test(req.url ?? ''));
      const first = start();
      const deviceId = await until('the phone to pair', 20_000, () => /paired: device (\S+)/.exec(first.output())?.[1]);
      const sent = await readJson(
        await call('POST', '/v1/messages', {
          body: 'before the crash',
          to: ['+14155550131', '+14155550132', '+14155550133'],
          device_id: deviceId,
        }),
      );
      const ids: string[] = sent.message_ids;
      await until('three sends', 20_000, () => (ids.every((id) => sentLines(id).length === 1) ? true : undefined));
      await until('a refused report', 20_000, () => (proxy.refused.length > 0 ? true : undefined));
      first.child.kill('SIGKILL');
      await new Promise((resolve) => first.child.once('exit', resolve));

      // Started again as the same handset, with the API reachable: it reports, it does not send again.
      proxy.refuseWhen(() => false);
      const second = start();
      await until('the outcomes to arrive', 45_000, async () => {
        const statuses = await Promise.all(
          ids.map(async (id) => (await readJson(await call('GET', `/v1/messages/${id}`))).message.status),
        );
        return statuses.every((status) => status === 'delivered') ? true : undefined;
      });
      for (const id of ids) expect(sentLines(id)).toHaveLength(1);
      expect(second.output()).toMatch(/resuming from .*: 3 message\(s\) already handled/);

      // A clean stop keeps nothing once every outcome is final and reported.
      second.child.kill('SIGINT');
      await new Promise((resolve) => second.child.once('exit', resolve));
      expect(await readdir(stateDir)).toEqual([]);
    } finally {
      for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
      await proxy.close();
      await rm(stateDir, { recursive: true, force: true });
    }
  });

  it('runs as a command and exits 0 on Ctrl-C', async () => {
    const code = (await readJson(await call('POST', '/v1/devices/pairing-codes'))).code;
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'tools/phone/cli.ts', '--code', code, '--server', app.url, '--print-token'],
      { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const exit = new Promise<number | null>((resolve) => child.once('exit', (status) => resolve(status)));
    try {
      await until('the phone to pair', 20_000, () => (/heartbeat: online/.test(output) ? true : undefined));
      expect(output).toMatch(/\[phone 1\] device token: \S+/);
      child.kill('SIGINT');
      expect(await exit).toBe(0);
      expect(output).toMatch(/\[phone 1\] stopped/);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
