import { useState } from 'react';
import { useLoad, type Loaded } from './use-load';

/** One page of a list of the API: its rows and the cursor of the next, if any. */
export interface Page<T> {
  data: T[];
  next_cursor?: string | null;
}

/** The rows shown so far and the cursor "Load more" asks with (none after the last page). */
export interface Listed<T> {
  rows: T[];
  next: string | undefined;
}

export interface PagedList<T> extends Loaded<Listed<T>> {
  /** Appends the page at `cursor`; a refusal goes to `onError`, or to `moreError`. */
  loadMore(cursor: string): Promise<void>;
  /** Why the last "Load more" failed (unless `onError` takes it); kept until the screen is left. */
  moreError: unknown;
}

/**
 * A list of the API read page by page: the first page is loaded (and asked again every `pollMs`) as
 * `useLoad` does, the pages after it are appended by `loadMore` and dropped when `deps` (the list's
 * filters) change.
 */
export function usePagedList<T>(
  fetchPage: (cursor: string | undefined) => Promise<Page<T>>,
  deps: unknown[],
  options: { pollMs?: number; onError?(error: unknown): void } = {},
): PagedList<T> {
  const first = useLoad(() => fetchPage(undefined), deps, options.pollMs);
  const key = JSON.stringify(deps);
  const [more, setMore] = useState<{ key: string; rows: T[]; cursor?: string }>({ key, rows: [] });
  const [moreError, setMoreError] = useState<unknown>(null);
  const extra = more.key === key ? more : { key, rows: [], cursor: undefined };

  async function loadMore(cursor: string) {
    try {
      const page = await fetchPage(cursor);
      setMore((m) => ({
        key,
        rows: [...(m.key === key ? m.rows : []), ...page.data],
        cursor: page.next_cursor ?? undefined,
      }));
    } catch (e) {
      (options.onError ?? setMoreError)(e);
    }
  }

  const data = first.data && {
    rows: [...first.data.data, ...extra.rows],
    // Until a later page came, the first page's cursor.
    next: extra.rows.length ? extra.cursor : (first.data.next_cursor ?? undefined),
  };
  return { ...first, data, loadMore, moreError };
}
