import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { deviceRow, eventsOf } from '../../support/factories';
import type { WorkflowStack } from '../../support/temporal';
import type { TestApp } from '../../support/app';
import { MOBILE_API, registeredApp, startSmsGateStack, tenant } from './helpers';

// Liveness from the phone, not from our writes (issue 37, point 3). A phone that drops off without
// closing its event stream (out of coverage, battery out, behind a tunnel that keeps its side open)
// leaves a socket we can still write to: the keepalives "succeed" into the kernel's buffer for as
// long as TCP retries. Here the phone is a raw TCP client that opens the stream, then never reads
// again and never closes: it must go offline at the ordinary deadline (2 × 15 minutes after its
// last own contact), not be kept online by the keepalives written to it.

const MINUTE = 60_000;

describe('a phone whose event stream goes silent without closing', () => {
  let stack: WorkflowStack;
  let app: TestApp;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    // Keepalives every 200 ms of real time: many are written between the steps below.
    stack = await startSmsGateStack('smsgate-silent-stream-test', { PHONE_EVENTS_HEARTBEAT: '200ms' });
    app = stack.app;
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await stack?.close();
  });

  const syncClock = async () => app.clock.set(new Date(await stack.env.currentTimeMs()));

  /** GET …/events over a bare socket; resolves once the 200 and the first bytes are in, then reads no more. */
  function openSilentStream(token: string): Promise<{ socket: Socket; head: string }> {
    const url = new URL(`${app.url}${MOBILE_API}/events`);
    return new Promise((resolve, reject) => {
      const socket = connect(Number(url.port), url.hostname);
      sockets.push(socket);
      let head = '';
      socket.setEncoding('utf8');
      socket.on('error', reject);
      socket.on('data', (chunk: string) => {
        head += chunk;
        if (!head.includes(':keepalive')) return;
        // From here on the phone is gone: nothing read, nothing acknowledged by the app, no FIN.
        socket.removeAllListeners('data');
        socket.pause();
        resolve({ socket, head });
      });
      socket.write(
        `GET ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${token}\r\n` +
          `X-Forwarded-For: ${app.clientIp}\r\nAccept: text/event-stream\r\n\r\n`,
      );
    });
  }

  it('goes offline at the deadline after its last own contact, keepalives written to it or not', async () => {
    await syncClock();
    const { key } = await tenant(app);
    const phone = await registeredApp(app, key);
    const { id, token } = phone.state.registration!;
    await app.services.background.idle();

    const { socket, head } = await openSilentStream(token);
    expect(head).toMatch(/^HTTP\/1\.1 200/);
    const contactAt = (await deviceRow(app.orm, id)).lastHeartbeatAt!.getTime();
    expect(contactAt).toBe(app.clock.now().getTime());

    // 40 minutes in 5-minute steps, the API's clock following the server's, the stream open and
    // written to all along (the keepalives go on: the socket is neither closed nor destroyed).
    for (let step = 0; step < 8; step++) {
      await stack.env.sleep(5 * MINUTE);
      await syncClock();
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect(socket.destroyed).toBe(false);
    }
    await vi.waitFor(async () => expect((await deviceRow(app.orm, id)).online).toBe(false), {
      timeout: 10_000,
      interval: 100,
    });
    expect((await eventsOf(app.orm, { deviceId: id })).map((e) => e.name)).toEqual(['device.offline']);
    // Nothing the server wrote counted as the phone's contact.
    expect((await deviceRow(app.orm, id)).lastHeartbeatAt!.getTime()).toBe(contactAt);
  });
});
