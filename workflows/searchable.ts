import { upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { KeywordKey } from './search-attributes';

/**
 * Keeps keyword search attributes current: upserts the pairs whose value differs from what the
 * execution has (set at start, carried over by continue-as-new, or upserted earlier), so an
 * unchanged status costs no history event.
 */
export function keepSearchAttributes(pairs: ReadonlyArray<readonly [KeywordKey, string]>): void {
  const current = workflowInfo().typedSearchAttributes;
  const changed = pairs.filter(([key, value]) => current.get(key) !== value);
  if (changed.length === 0) return;
  upsertSearchAttributes(changed.map(([key, value]) => ({ key, value })));
}
