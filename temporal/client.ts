import { Client, Connection, WorkflowIdConflictPolicy, WorkflowIdReusePolicy } from '@temporalio/client';
import type { Config } from '../src/config';

/** host:port of the Temporal frontend: the configured one, else the dev server the start command runs. */
export function temporalAddress(config: Config): string {
  return config.temporal.address ?? `127.0.0.1:${config.temporal.devPort}`;
}

export async function connectTemporal(config: Config, address = temporalAddress(config)): Promise<Client> {
  const connection = await Connection.connect({ address });
  return new Client({ connection, namespace: config.temporal.namespace });
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
