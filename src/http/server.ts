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
        server.closeIdleConnections();
        // In-flight requests get ten seconds; then their sockets are cut.
        setTimeout(() => server.closeAllConnections(), 10_000).unref();
      }),
  };
}
