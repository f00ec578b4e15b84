// A lean keep-alive HTTP client: node:http with a pooled Agent costs the client far less CPU per request
// than fetch, so the server, not the client, is what the figures measure.
import http from 'node:http';

export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  /** From writing the request to the last byte of the answer. */
  ms: number;
  json<T = any>(): T;
}

export interface HttpClient {
  request(method: string, path: string, options?: { headers?: Record<string, string>; body?: unknown }): Promise<Reply>;
  /** Fails with the answer's text unless the status is the expected one. */
  expect(
    status: number,
    method: string,
    path: string,
    options?: { headers?: Record<string, string>; body?: unknown },
  ): Promise<Reply>;
  close(): void;
}

/** With several bases (the api processes of a cluster), requests go to each in turn. */
export function httpClient(base: string | string[], sockets = 16): HttpClient {
  const urls = [base].flat().map((b) => new URL(b));
  let turn = 0;
  const agent = new http.Agent({ keepAlive: true, maxSockets: sockets, maxFreeSockets: sockets });

  function request(
    method: string,
    path: string,
    options: { headers?: Record<string, string>; body?: unknown } = {},
  ): Promise<Reply> {
    const payload = options.body === undefined ? undefined : Buffer.from(JSON.stringify(options.body));
    const headers: Record<string, string | number> = { ...options.headers };
    if (payload) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = payload.length;
    }
    return new Promise((resolve, reject) => {
      const started = performance.now();
      const url = urls[turn++ % urls.length];
      const req = http.request({ host: url.hostname, port: url.port, method, path, headers, agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const ms = performance.now() - started;
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, ms, json: () => JSON.parse(text) });
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(payload);
    });
  }

  return {
    request,
    async expect(status, method, path, options) {
      const reply = await request(method, path, options);
      if (reply.status !== status) {
        throw new Error(`${method} ${path}: expected ${status}, got ${reply.status}: ${reply.text.slice(0, 500)}`);
      }
      return reply;
    },
    close: () => agent.destroy(),
  };
}
