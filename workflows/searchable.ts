import { patched, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { KeywordKey } from './search-attributes';

// Histories recorded before workflows kept their search attributes have no upsert commands: they
// replay without them (patched() is false where the history has no marker).
export const SEARCH_ATTRIBUTES_PATCH = 'search-attributes';

/**
 * Keeps keyword search attributes current: upserts the pairs whose value differs from what the
 * execution has (set at start, carried over by continue-as-new, or upserted earlier), so an
 * unchanged status costs no history event.
 */
export function keepSearchAttributes(pairs: ReadonlyArray<readonly [KeywordKey, string]>): void {
  const current = workflowInfo().typedSearchAttributes;
  const changed = pairs.filter(([key, value]) => current.get(key) !== value);
  if (changed.length === 0 || !patched(SEARCH_ATTRIBUTES_PATCH)) return;
  upsertSearchAttributes(changed.map(([key, value]) => ({ key, value })));
}
