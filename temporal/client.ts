import {
  Client,
  Connection,
  WorkflowIdConflictPolicy,
  WorkflowIdReusePolicy,
  type ClientInterceptors,
} from '@temporalio/client';
import type { Config } from '../src/config';
import type { Tracing } from '../src/traces/tracing';

/** host:port of the Temporal frontend: the configured one, else the dev server the start command runs. */
export function temporalAddress(config: Config): string {
  return config.temporal.address ?? `127.0.0.1:${config.temporal.devPort}`;
}

/**
 * What Connection.connect and NativeConnection.connect both take to reach the frontend: its address,
 * and TLS (a CA, a client certificate, a server name) and the API key when configured.
 */
export function temporalConnectionOptions(config: Config, address = temporalAddress(config)) {
  const { tls, apiKey } = config.temporal;
  return {
    address,
    ...(tls ? { tls: { ...tls.options } } : {}),
    ...(apiKey ? { apiKey } : {}),
  };
}

/**
 * Connects with `connect`; with TLS configured, a failure names the TLS settings in use (a wrong
 * certificate otherwise reads as a bare handshake error), never their values.
 */
export async function withTlsSettings<T>(config: Config, address: string, connect: () => Promise<T>): Promise<T> {
  try {
    return await connect();
  } catch (error) {
    const tls = config.temporal.tls;
    if (!tls) throw error;
    const cause = error instanceof Error ? error.message : String(error);
    throw new Error(`cannot connect to Temporal at ${address} with ${tls.settings.join(', ')}: ${cause}`, {
      cause: error,
    });
  }
}

export async function connectTemporal(
  config: Config,
  address = temporalAddress(config),
  tracing?: Tracing,
): Promise<Client> {
  const connection = await withTlsSettings(config, address, () =>
    Connection.connect(temporalConnectionOptions(config, address)),
  );
  return new Client({ connection, namespace: config.temporal.namespace, interceptors: await clientInterceptors(tracing) });
}

/**
 * With tracing on: a StartWorkflow (SignalWorkflow, …) span per call, child of the active span, whose
 * context travels to the workflow in its headers. None when off, and the interceptors' package is not
 * loaded then (with what it requires of the tracing SDK, about 1.2 MB of heap).
 */
export async function clientInterceptors(tracing: Tracing | undefined): Promise<ClientInterceptors | undefined> {
  if (!tracing) return undefined;
  const { OpenTelemetryWorkflowClientInterceptor } = await import('@temporalio/interceptors-opentelemetry');
  return { workflow: [new OpenTelemetryWorkflowClientInterceptor({ tracer: tracing.tracer })] };
}

/**
 * Options for starting a workflow whose id is derived from a row: a repeated start (the normal path
 * racing the reconciler, a retried request) returns the running execution instead of failing, and a
 * closed one is never started again.
 */
export const idempotentStart = {
  workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
  workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
} as const;
