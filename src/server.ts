import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { createApp, type AppDeps } from './app';
import { integratorBody, isIntegratorPath } from './compat/smsgate/integrator.routes';
import { ApiError } from './http/errors';
import { IMPLEMENTED } from './http/route-methods';

export interface RunningApi {
  server: Server;
  url: string;
  stop(): Promise<void>;
}

/** Request line and headers together (Node's default): past it, 414 or 431. */
export const MAX_HEADER_BYTES = 16 * 1024;

// Methods Node's parser knows nothing of never reach the app; they get the app's answer anyway.
const ALLOW = IMPLEMENTED.join(', ');

/** The path of a raw request's first line, runs of slashes as one (as the app reads compat paths). */
function pathOf(raw: string): string {
  const target = /^[A-Z]+ (\S+)/.exec(raw)?.[1] ?? '';
  return target.split('?')[0].replace(/\/{2,}/g, '/');
}

/**
 * A raw HTTP/1.1 answer for requests Node refuses before the app: in the interface's error body, or
 * under the SMSGate integrator API in its shape, as the app answers there.
 */
function rawError(status: number, code: string, message: string, extra: Record<string, string> = {}, path = ''): string {
  const error = new ApiError(status, code, message);
  const body = JSON.stringify(isIntegratorPath(path) ? integratorBody(error) : error.toBody());
  const headers = {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(body)),
    Connection: 'close',
    ...extra,
  };
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  return `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${lines.join('')}\r\n${body}`;
}

function answerFor(error: NodeJS.ErrnoException & { rawPacket?: Buffer }): string {
  const raw = error.rawPacket?.subarray(0, MAX_HEADER_BYTES).toString('latin1') ?? '';
  const path = pathOf(raw);
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    // The request line alone is past the limit when the bytes seen so far hold no line end.
    return /^[A-Z]+ /.test(raw) && !raw.includes('\r\n')
      ? rawError(414, 'uri_too_long', 'The URL is too long.', {}, path)
      : rawError(431, 'header_fields_too_large', 'The request headers are too large.', {}, path);
  }
  if (error.code === 'HPE_INVALID_METHOD') {
    return rawError(405, 'method_not_allowed', 'This endpoint does not support that method.', { Allow: ALLOW }, path);
  }
  return rawError(400, 'bad_request', 'The request could not be read.', {}, path);
}

/** Koa's app.callback(): it answers its own errors (ctx.onerror), so the promise it returns never rejects. */
export type RequestHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/**
 * The API's HTTP server: requests Node's parser refuses (headers or URL too long, unknown methods,
 * malformed requests) and CONNECT get the interface's error body instead of a reset connection.
 */
export function createHttpServer(handler: RequestHandler): Server {
  const server = createServer({ maxHeaderSize: MAX_HEADER_BYTES }, (req, res) => void handler(req, res));
  const answered = new WeakSet<Duplex>();
  const answer = (socket: Duplex, response: string) => {
    if (answered.has(socket)) return;
    answered.add(socket);
    if (!socket.writable) return void socket.destroy();
    socket.end(response);
    // Read and drop what the client is still sending: closing with unread bytes would reset the
    // connection, and the client would never see the answer.
    socket.on('data', () => {});
    socket.resume();
    setTimeout(() => socket.destroy(), 5000).unref();
  };
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === 'ECONNRESET') return void socket.destroy();
    answer(socket, answerFor(error));
  });
  server.on('connect', (_req, socket: Duplex) => {
    answer(
      socket,
      rawError(405, 'method_not_allowed', 'This endpoint does not support that method.', { Allow: ALLOW }),
    );
  });
  return server;
}

/** Serves the app; stop() stops accepting, lets in-flight requests finish, then closes idle sockets. */
export async function listen(deps: AppDeps, port = deps.config.port, host?: string): Promise<RunningApi> {
  const app = createApp(deps);
  const server = createHttpServer(app.callback());
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  return {
    server,
    url: `http://${host ?? 'localhost'}:${address.port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Keep-alive clients (phones polling every few seconds) would hold their sockets open for the
        // whole grace time: every response from now on ends its connection, and sockets that fall
        // idle are closed as they do.
        server.on('request', (_req, res) => res.setHeader('connection', 'close'));
        server.closeIdleConnections();
        const sweep = setInterval(() => server.closeIdleConnections(), 100).unref();
        server.once('close', () => clearInterval(sweep));
        // In-flight requests get five seconds; then their sockets are cut.
        setTimeout(() => server.closeAllConnections(), 5_000).unref();
      }),
  };
}
