import { bundleWorkflowCode, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import path from 'node:path';

export const workflowsPath = path.join(__dirname, '..', 'workflows', 'index.ts');

/** The workflow bundle, built once and shared (tests build it in their global setup). */
export function bundleWorkflows(): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowCode({
    workflowsPath,
    // Workflow code must stay deterministic: fail the bundle if it pulls in a Node module.
    ignoreModules: [],
    logger: { log() {}, trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error },
  });
}
