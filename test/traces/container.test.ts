import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { context, createContextKey, isSpanContextValid, propagation, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createApp } from '../../src/app';
import { createContainer, type Container, type ContainerOptions } from '../../src/container';
import { listen } from '../../src/server';
import { createLogger } from '../../src/lib/logger';
import { workerTracing } from '../../temporal/worker';
import { testConfig } from '../support/config';
import { createTimeSkippingEnv } from '../support/temporal';

// Tracing as the processes get it from the composition root (src/container.ts): nothing at all
// without OTEL_EXPORTER_OTLP_ENDPOINT, spans over OTLP/HTTP to the endpoint with it, and the test
// seam that sends them to an in-memory exporter instead.

/** Whether anything of OpenTelemetry is registered in this process: a provider, a context manager, a propagator. */
function installed() {
  const span = trace.getTracer('probe').startSpan('probe');
  span.end();
  const key = createContextKey('probe');
  const carrier: Record<string, string> = {};
  propagation.inject(trace.setSpan(ROOT_CONTEXT, span), carrier);
  return {
    provider: isSpanContextValid(span.spanContext()),
    contextManager: context.with(ROOT_CONTEXT.setValue(key, 1), () => context.active().getValue(key)) === 1,
    propagator: 'traceparent' in carrier,
  };
}

const NOTHING = { provider: false, contextManager: false, propagator: false };

/** The OTLP/HTTP JSON a collector receives: span names and service names. */
interface Received {
  path: string;
  body: {
    resourceSpans: Array<{
      resource: { attributes: Array<{ key: string; value: { stringValue?: string } }> };
      scopeSpans: Array<{ spans: Array<{ name: string; traceId: string; parentSpanId?: string }> }>;
    }>;
  };
}

async function startCollector() {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ path: req.url ?? '', body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    spans: () =>
      received.flatMap(({ body }) =>
        body.resourceSpans.flatMap((r) =>
          r.scopeSpans.flatMap((s) =>
            s.spans.map((span) => ({
              ...span,
              service: r.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue,
            })),
          ),
        ),
      ),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('tracing from the composition root', () => {
  let env: TestWorkflowEnvironment;
  const logger = createLogger('silent');

  beforeAll(async () => {
    env = await createTimeSkippingEnv();
  });
  afterAll(async () => {
    await env?.teardown();
  });

  const open = (env_: Parameters<typeof testConfig>[0], options: ContainerOptions = {}) =>
    createContainer(testConfig(env_), logger, {
      databaseUrl: inject('databaseUrl'),
      temporalAddress: env.address,
      serviceName: 'phone-gateway-api',
      ...options,
    });

  /** Serves the container as the api process does and makes one request. */
  async function readyz(container: Container, headers: Record<string, string> = {}) {
    const api = await listen(container, 0, '127.0.0.1');
    try {
      const res = await fetch(`${api.url}/readyz`, { headers });
      expect(res.status).toBe(200);
    } finally {
      await api.stop();
    }
  }

  it('installs nothing without OTEL_EXPORTER_OTLP_ENDPOINT: no provider, no listeners, no interceptors, no middleware', async () => {
    const container = await open({});
    try {
      expect(container.tracing).toBeUndefined();
      expect(installed()).toEqual(NOTHING);
      const knex = container.orm.em.getConnection().getKnex();
      // (MikroORM itself listens to `query`; tracing would be the only one to hear the outcomes.)
      expect(['query-response', 'query-error'].map((event) => knex.listenerCount(event))).toEqual([0, 0]);
      expect(container.temporal.workflow.options.interceptors).toEqual([]);
      expect(createApp(container).middleware.map((fn) => fn.name)).not.toContain('traceRequest');
      expect(await workerTracing(container.tracing)).toEqual({});
      await readyz(container);
      expect(installed()).toEqual(NOTHING);
    } finally {
      await container.close();
    }
  });

  it('exports over OTLP/HTTP to <endpoint>/v1/traces, as phone-gateway-api, and flushes on close', async () => {
    const collector = await startCollector();
    try {
      const container = await open({ OTEL_EXPORTER_OTLP_ENDPOINT: `${collector.url}/` });
      try {
        expect(installed()).toEqual({ provider: true, contextManager: true, propagator: true });
        expect(createApp(container).middleware[0].name).toBe('traceRequest');
        await readyz(container);
      } finally {
        await container.close();
      }
      // Spans are batched; closing the container exported them, then unregistered everything.
      expect(installed()).toEqual(NOTHING);
      expect(collector.received.map((r) => r.path)).toEqual(expect.arrayContaining(['/v1/traces']));
      const spans = collector.spans();
      const request = spans.find((s) => s.name === 'GET /readyz');
      expect(request?.service).toBe('phone-gateway-api');
      expect(request?.parentSpanId || undefined).toBeUndefined();
      expect(spans.find((s) => s.name === 'SELECT' && s.traceId === request!.traceId)).toBeDefined();
    } finally {
      await collector.close();
    }
  });

  it('sends spans to the test seam instead, named by OTEL_SERVICE_NAME, continuing a caller’s traceparent', async () => {
    const exporter = new InMemorySpanExporter();
    const container = await open(
      { OTEL_SERVICE_NAME: 'gateway-under-test' },
      { spanProcessor: new SimpleSpanProcessor(exporter) },
    );
    const caller = { traceId: 'a'.repeat(32), spanId: 'b'.repeat(16) };
    try {
      expect(container.tracing).toBeDefined();
      const knex = container.orm.em.getConnection().getKnex();
      expect(['query-response', 'query-error'].map((event) => knex.listenerCount(event))).toEqual([1, 1]);
      expect(container.temporal.workflow.options.interceptors).toHaveLength(1);
      await readyz(container, { traceparent: `00-${caller.traceId}-${caller.spanId}-01` });
      // Read before close: shutting the provider down empties the in-memory exporter.
      const spans = exporter.getFinishedSpans();
      const request = spans.find((s) => s.name === 'GET /readyz')!;
      expect(request.resource.attributes['service.name']).toBe('gateway-under-test');
      expect(request.spanContext().traceId).toBe(caller.traceId);
      expect(request.parentSpanId).toBe(caller.spanId);
      expect(request.attributes).toMatchObject({ 'http.route': '/readyz', 'http.response.status_code': 200 });
      const sql = spans.find((s) => s.parentSpanId === request.spanContext().spanId && s.name === 'SELECT');
      expect(sql?.attributes).toMatchObject({ 'db.system': 'postgresql', 'db.statement': 'select ?' });
    } finally {
      await container.close();
    }
    expect(installed()).toEqual(NOTHING);
  });
});
