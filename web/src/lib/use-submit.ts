import { useRef, useState, type FormEvent } from 'react';
import { ApiFailure } from '../api/client';

export interface Submission<T> {
  /** What the last run threw (an ApiFailure, or an Error in words for the person), until the next run. */
  error: unknown;
  setError(error: unknown): void;
  /** The API's refusal of one field, in the form's words, to show under its input. */
  field(name: string): string | undefined;
  /** While a run is under way (except one started with `{ busy: false }`). */
  busy: boolean;
  /** What the form's last submit returned once it succeeded (its success notice), until the next submit. */
  done: T | undefined;
  /** An action: clears the last error, runs `work`, keeps what it throws. */
  run(work: () => Promise<unknown>, options?: { busy?: boolean }): Promise<void>;
  /** A form's onSubmit: the browser's submit prevented, then `work` run as a submit. */
  submit(work: () => Promise<T>): (event: FormEvent) => void;
}

/**
 * A form's or an action's request and its outcome, the same on every screen: busy while it runs, its
 * refusal kept for the form (field by field) until the next try, and `onDone` (a list's reload) after
 * each run that succeeded.
 */
export function useSubmit<T = unknown>(options: { onDone?(): void } = {}): Submission<T> {
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState<T | undefined>(undefined);
  const onDone = useRef(options.onDone);
  onDone.current = options.onDone;

  async function run(work: () => Promise<unknown>, { busy: shown = true } = {}) {
    if (shown) setBusy(true);
    setError(null);
    try {
      await work();
      onDone.current?.();
    } catch (e) {
      setError(e);
    } finally {
      if (shown) setBusy(false);
    }
  }

  return {
    error,
    setError,
    field: (name) => (error instanceof ApiFailure ? error.field(name) : undefined),
    busy,
    done,
    run,
    submit: (work) => (event) => {
      event.preventDefault();
      setDone(undefined);
      void run(async () => {
        const value = await work();
        setDone(() => value);
      });
    },
  };
}
