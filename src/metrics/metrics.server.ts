import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { bearerIs } from '../http/auth';
import type { Config } from '../config';
import type { Logger } from '../lib/logger';
import type { Metrics } from './metrics';

/** METRICS_PORT's listener for this process, when one is configured (`port`: the entry point's choice). */
export async function serveConfiguredMetrics(
  metrics: Metrics,
  config: Config,
  logger: Logger,
  port = config.metrics.port,
): Promise<MetricsServer | undefined> {
  if (port === null) return undefined;
  const server = await serveMetrics(metrics, { port, host: config.metrics.host, token: config.metrics.token });
  logger.info({ url: server.url }, 'metrics listening');
  return server;
}

export interface MetricsServer {
  url: string;
  stop(): Promise<void>;
}

/**
 * GET /metrics on a listener of its own (METRICS_PORT on METRICS_HOST): reachable by the scraper,
 * not by the API's clients. When a token is configured it is required here too.
 */
export async function serveMetrics(
  metrics: Metrics,
  options: { port: number; host: string; token?: string },
): Promise<MetricsServer> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/metrics') return void res.writeHead(404, { 'Content-Type': 'text/plain' }).end('Not found\n');
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return void res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain' }).end('Method not allowed\n');
    if (options.token !== undefined && !bearerIs(req.headers.authorization, options.token))
      return void res
        .writeHead(401, { 'WWW-Authenticate': 'Bearer', 'Content-Type': 'text/plain' })
        .end('Unauthorized\n');
    metrics.render().then(
      ({ contentType, body }) => {
        res.writeHead(200, { 'Content-Type': contentType, 'Cache-Control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : body);
      },
      () => res.writeHead(500, { 'Content-Type': 'text/plain' }).end('Metrics could not be collected\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${host}:${port}/metrics`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
