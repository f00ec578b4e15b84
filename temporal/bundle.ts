import { bundleWorkflowCode, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import path from 'node:path';

export const workflowsPath = path.join(__dirname, '..', 'workflows', 'index.ts');

/** The workflow interceptors of tracing (temporal/workflow-tracing.ts). */
export const workflowTracingPath = path.join(__dirname, 'workflow-tracing.ts');

/**
 * The workflow bundle, built once and shared (tests build it in their global setup). With
 * `traces`, the OpenTelemetry workflow interceptors are bundled in; without, the workflows run
 * exactly as written. Either bundle replays the other's histories: the interceptors add headers and
 * spans, never commands.
 */
export function bundleWorkflows(options: { traces?: boolean } = {}): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowCode({
    workflowsPath,
    workflowInterceptorModules: options.traces ? [workflowTracingPath] : [],
    // Workflow code must stay deterministic: fail the bundle if it pulls in a Node module.
    ignoreModules: [],
    logger: { log() {}, trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error },
  });
}
