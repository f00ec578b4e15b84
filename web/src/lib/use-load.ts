import { useCallback, useEffect, useRef, useState } from 'react';

export interface Loaded<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload(): void;
}

/**
 * How often a live screen asks again (Overview, Batches, Messages, a batch, a message, Phones,
 * Webhooks and their delivery log, the Inbox): one rule for every screen, paused while the tab is
 * hidden, so what the phones and receivers do shows without a reload.
 */
export const LIVE_MS = 3000;

/** Runs `load` when `deps` change and on reload(); optionally again every `pollMs` without a spinner. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[], pollMs?: number): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;

  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    const run = (quiet: boolean) =>
      loadRef.current().then(
        (data) => live && setState({ data, loading: false }),
        (error) => live && setState((s) => (quiet && s.data !== undefined ? s : { error, loading: false })),
      );
    void run(false);
    const timer = pollMs
      ? window.setInterval(() => {
          if (document.visibilityState === 'visible') void run(true);
        }, pollMs)
      : undefined;
    return () => {
      live = false;
      if (timer) window.clearInterval(timer);
    };
    // The caller's deps array stands for load's inputs (load itself is read from a ref).
  }, [...deps, tick, pollMs]);

  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { data: state.data, error: state.error, loading: state.loading, reload };
}
