import { connect, createServer } from 'node:net';

/** A loopback port that was free a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * The first of `count` consecutive loopback ports that were free a moment ago, below Linux's
 * ephemeral range (so no port freePort hands out meanwhile lands among them) and below 32768 (a
 * Temporal cluster keeps its membership ports as a smallint).
 */
export async function freePortRun(count: number): Promise<number> {
  for (;;) {
    const first = 20_000 + Math.floor(Math.random() * (32_000 - 20_000));
    let free = true;
    for (let port = first; free && port < first + count; port++) free = await canListen(port);
    if (free) return first;
  }
}

/** Whether something accepts a TCP connection on this loopback port now. */
export function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
