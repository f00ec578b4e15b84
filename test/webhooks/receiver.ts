import { createServer, type Server } from 'node:https';
import { isIPv6, type AddressInfo } from 'node:net';
import { inject } from 'vitest';

export interface Received {
  headers: Record<string, string | string[] | undefined>;
  /** The body exactly as it arrived. */
  raw: string;
  deliveryId: string;
  event: string;
  signature: string;
  /** What the receiver answered (after any delay). */
  answered?: number;
}

export interface Answer {
  status: number;
  body?: string;
  delayMs?: number;
  headers?: Record<string, string>;
}

export interface Receiver {
  url: string;
  port: number;
  requests: Received[];
  /** TLS connections accepted (a client keeping connections alive makes fewer than its requests). */
  connections: number;
  /** Decides each answer; 200 by default. */
  respond: (request: Received, index: number) => Answer | Promise<Answer>;
  /** Closes the connections kept alive with no request on them, as its keep-alive timeout does. */
  closeIdle(): void;
  close(): Promise<void>;
}

export interface ReceiverOptions {
  /** The address it listens on (127.0.0.1): 0.0.0.0 to be reached from containers. */
  listenHost?: string;
  /** The host its `url` names (127.0.0.1): how the service's processes reach it. */
  publicHost?: string;
  /** Its key and certificate (the test CA's for localhost and loopback): one naming publicHost (serverTls). */
  tls?: { key: string; cert: string };
}

/** A real HTTPS endpoint (on 127.0.0.1 unless told) with the test CA's certificate; it keeps every request. */
export async function startReceiver(
  respond: Receiver['respond'] = () => ({ status: 200, body: 'ok' }),
  options: ReceiverOptions = {},
): Promise<Receiver> {
  const { listenHost = '127.0.0.1', publicHost = '127.0.0.1' } = options;
  const { key, cert } = options.tls ?? inject('testTls');
  const receiver = { requests: [] as Received[], connections: 0, respond } as Receiver;
  const server: Server = createServer({ key, cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    const answerRequest = async () => {
      const received: Received = {
        headers: req.headers,
        raw: Buffer.concat(chunks).toString('utf8'),
        deliveryId: String(req.headers['x-service-delivery'] ?? ''),
        event: String(req.headers['x-service-event'] ?? ''),
        signature: String(req.headers['x-service-signature'] ?? ''),
      };
      const index = receiver.requests.push(received) - 1;
      const answer = await receiver.respond(received, index);
      if (answer.delayMs) await new Promise((resolve) => setTimeout(resolve, answer.delayMs));
      if (res.destroyed) return;
      received.answered = answer.status;
      res.writeHead(answer.status, answer.headers ?? { 'content-type': 'text/plain' });
      res.end(answer.body ?? '');
    };
    // A throwing respond() cuts the connection: the gateway sees a failed attempt.
    req.on('end', () => {
      answerRequest().catch(() => res.destroy());
    });
  });
  server.on('secureConnection', () => receiver.connections++);
  await new Promise<void>((resolve) => server.listen(0, listenHost, resolve));
  const port = (server.address() as AddressInfo).port;
  receiver.port = port;
  receiver.url = `https://${isIPv6(publicHost) ? `[${publicHost}]` : publicHost}:${port}/hook`;
  receiver.closeIdle = () => server.closeIdleConnections();
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}
