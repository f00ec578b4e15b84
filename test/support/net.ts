import { connect, createServer } from 'node:net';

const handedOut = new Set<number>();

/**
 * A loopback port that was free a moment ago, from 10000-19999: below Linux's ephemeral range, where
 * the kernel picks the local port of every outgoing connection (a port taken from there could be a
 * client socket's before its server binds it), and apart from freePortRun's ports. Never the same
 * port twice in one process.
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = 10_000 + Math.floor(Math.random() * 10_000);
    if (handedOut.has(port) || !(await canListen(port))) continue;
    handedOut.add(port);
    return port;
  }
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
