// Bundled into the workflow code only when tracing is on (temporal/bundle.ts): RunWorkflow,
// StartActivity, SignalWorkflow, ContinueAsNew spans made inside the sandbox, with the context of
// the StartWorkflow span that came in the workflow's headers, and handed to the worker's span
// processor through the `exporter` sink (temporal/worker.ts).
import {
  OpenTelemetryInboundInterceptor,
  OpenTelemetryInternalsInterceptor,
  OpenTelemetryOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/workflow';
import type { WorkflowInterceptorsFactory } from '@temporalio/workflow';

export const interceptors: WorkflowInterceptorsFactory = () => ({
  inbound: [new OpenTelemetryInboundInterceptor()],
  outbound: [new OpenTelemetryOutboundInterceptor()],
  internals: [new OpenTelemetryInternalsInterceptor()],
});
