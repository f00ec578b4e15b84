import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp, type AppDeps } from '../app';

export interface RunningApi {
  server: Server;
  url: string;
  stop(): Promise<void>;
}

/** Serves the app; stop() stops accepting, lets in-flight requests finish, then closes idle sockets. */
export async function listen(deps: AppDeps, port = deps.config.port, host?: string): Promise<RunningApi> {
  const app = createApp(deps);
  const server = createServer(app.callback());
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
