import { useEffect, useState } from 'react';

/**
 * The seconds left before a code can be mailed again (the API sends one a minute at most), counted
 * down every second; `start(seconds)` begins a new wait.
 */
export function useCooldown(initialSeconds: number): { wait: number; start(seconds: number): void } {
  const [until, setUntil] = useState(() => Date.now() + initialSeconds * 1000);
  const [now, setNow] = useState(Date.now());
  const wait = Math.max(0, Math.ceil((until - now) / 1000));
  useEffect(() => {
    if (wait === 0) return;
    const timer = window.setInterval(() => setNow(Date.now()), 1000);
    return () => window.clearInterval(timer);
  }, [wait]);
  return {
    wait,
    start(seconds) {
      setNow(Date.now());
      setUntil(Date.now() + seconds * 1000);
    },
  };
}

/** Codes are mailed at most once a minute per address. */
export const RESEND_COOLDOWN_SECONDS = 60;
