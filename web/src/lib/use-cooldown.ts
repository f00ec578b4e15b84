import { useEffect, useState } from 'react';

/**
 * The seconds left before a code can be mailed again (the API sends one a minute at most), counted
 * down every second; `start(seconds)` begins a new wait.
 */
export function useCooldown(initialSeconds: number): { wait: number; start(seconds: number): void } {
  // One reading of the clock for both ends: two readings a millisecond apart made a wait of 60 s read 61.
  const [span, setSpan] = useState(() => {
    const at = Date.now();
    return { now: at, until: at + initialSeconds * 1000 };
  });
  const wait = Math.max(0, Math.ceil((span.until - span.now) / 1000));
  useEffect(() => {
    if (wait === 0) return;
    const timer = window.setInterval(() => setSpan((current) => ({ ...current, now: Date.now() })), 1000);
    return () => window.clearInterval(timer);
  }, [wait]);
  return {
    wait,
    start(seconds) {
      const at = Date.now();
      setSpan({ now: at, until: at + seconds * 1000 });
    },
  };
}

/** Codes are mailed at most once a minute per address. */
export const RESEND_COOLDOWN_SECONDS = 60;
