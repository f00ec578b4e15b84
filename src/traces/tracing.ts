import { context, propagation, ROOT_CONTEXT, trace, type Context, type Tracer } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';

// OpenTelemetry traces, off unless OTEL_EXPORTER_OTLP_ENDPOINT is set. When off nothing is
// installed: no provider, no context manager, no middleware, no query listeners, no interceptors
// (callers test for `undefined`). When on, one provider per process is registered globally (the
// Temporal interceptors read the global context and propagator), and the spans are:
//   the API     a server span per request (src/traces/http.ts)
//   Postgres    a span per SQL statement (src/traces/sql.ts)
//   Temporal    StartWorkflow, RunWorkflow, StartActivity, RunActivity, SignalWorkflow
//               (@temporalio/interceptors-opentelemetry; temporal/client.ts, worker.ts, bundle.ts)
//   webhooks    a WebhookAttempt span per attempt, in the trace that queued the delivery (its
//               traceparent is kept on the row: one queue workflow serves many traces)
// and the one starter (temporal/starter.ts) starts each workflow in the context of the request or
// activity that queued it, so a send is one trace from the request to the webhook attempt.

export interface Tracing {
  tracer: Tracer;
  /** Where workflow spans go: they are made in the workflow sandbox and handed out through a sink. */
  spanProcessor: SpanProcessor;
  resource: Resource;
  /** Exports what is buffered, stops the provider and unregisters it. */
  shutdown(): Promise<void>;
}

export interface TracingOptions {
  /** The OTLP/HTTP traces URL (config.traces.endpoint); unset: no tracing. */
  endpoint?: string;
  serviceName: string;
  /** Test seam: spans go here (e.g. an in-memory exporter) instead of an OTLP exporter. */
  spanProcessor?: SpanProcessor;
}

let installed: Tracing | undefined;

/**
 * Installs tracing for this process, or returns undefined (and installs nothing) when it is off.
 * The SDK, its resource detection and the OTLP exporter are loaded only when it is on: required
 * at start they held about 2.3 MB of the API process's heap at rest for nothing.
 */
export async function installTracing(options: TracingOptions): Promise<Tracing | undefined> {
  if (!options.endpoint && !options.spanProcessor) return undefined;
  if (installed) throw new Error('tracing is already installed in this process');
  const [{ OTLPTraceExporter }, { Resource }, { BatchSpanProcessor }, { NodeTracerProvider }] = await Promise.all([
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/sdk-trace-node'),
  ]);
  // Checked again: another call may have installed it while the modules loaded.
  if (installed) throw new Error('tracing is already installed in this process');
  const spanProcessor =
    options.spanProcessor ?? new BatchSpanProcessor(new OTLPTraceExporter({ url: options.endpoint }));
  const resource = Resource.default().merge(new Resource({ 'service.name': options.serviceName }));
  const provider = new NodeTracerProvider({ resource, spanProcessors: [spanProcessor] });
  // AsyncLocalStorage context and the W3C traceparent propagator, for this process's code and the SDK's.
  provider.register();
  const tracing: Tracing = {
    tracer: provider.getTracer('phone-gateway'),
    spanProcessor,
    resource,
    async shutdown() {
      if (installed !== tracing) return;
      installed = undefined;
      try {
        await provider.shutdown();
      } finally {
        trace.disable();
        context.disable();
        propagation.disable();
      }
    },
  };
  installed = tracing;
  return tracing;
}

/** The W3C traceparent of the active span (to be continued later, elsewhere), or null without one. */
export function activeTraceParent(): string | null {
  const carrier: { traceparent?: string } = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent ?? null;
}

/** The context a stored traceparent continues. */
export const contextOf = (traceParent: string): Context =>
  propagation.extract(ROOT_CONTEXT, { traceparent: traceParent });
