import { setTimeout as sleep } from 'node:timers/promises';
import { isGrpcServiceError, type ConnectionLike } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import type { Logger } from '../src/lib/logger';
import { ensureSearchAttributes } from './search-attributes';

// A self-hosted cluster on SQL starts with no namespace but its system one. `npm run temporal:setup`
// (compose's one-shot `temporal-setup` job, `npm run cluster`) registers the service's namespace and its
// search attributes before any api or worker starts, so that every server process loads them at its own
// start rather than after its search-attribute cache expires (60 s): production dynamic config does not
// force a refresh on every read. Temporal Cloud namespaces are made in Cloud itself (docs/production.md).

const ALREADY_EXISTS = 6;
const NOT_FOUND = 5;

type Services = Pick<ConnectionLike, 'workflowService' | 'operatorService'>;

/** Registers `namespace` unless it exists; true when this call made it. */
export async function registerNamespace(connection: Services, namespace: string, retentionMs: number): Promise<boolean> {
  try {
    await connection.workflowService.describeNamespace({ namespace });
    return false;
  } catch (error) {
    if (!(isGrpcServiceError(error) && error.code === NOT_FOUND)) throw error;
  }
  try {
    await connection.workflowService.registerNamespace({
      namespace,
      workflowExecutionRetentionPeriod: msToTs(retentionMs),
    });
    return true;
  } catch (error) {
    if (isGrpcServiceError(error) && error.code === ALREADY_EXISTS) return false;
    throw error;
  }
}

/** The namespace, then its search attributes (which need the namespace to be known to the server). */
export async function setUpNamespace(
  connection: Services,
  namespace: string,
  retentionMs: number,
  logger: Logger,
): Promise<void> {
  if (await registerNamespace(connection, namespace, retentionMs)) {
    logger.info({ namespace, retention_days: retentionMs / 86_400_000 }, 'temporal namespace registered');
  }
  // A new namespace reaches each frontend's namespace registry on its next refresh (10 s by default);
  // until then adding search attributes to it is answered NOT_FOUND.
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      await ensureSearchAttributes(connection, namespace, logger);
      return;
    } catch (error) {
      if (!(isGrpcServiceError(error) && error.code === NOT_FOUND) || Date.now() > deadline) throw error;
      await sleep(500);
    }
  }
}
