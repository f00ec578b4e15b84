import { useEffect, useRef } from 'react';

declare global {
  interface Window {
    turnstile?: {
      render(
        el: HTMLElement,
        options: { sitekey: string; callback(token: string): void; 'expired-callback'(): void },
      ): string;
      remove(id: string): void;
    };
  }
}

const SCRIPT = 'https://challenges.cloudflare.com/turnstile/v0/api.js?render=explicit';

function loadScript(): Promise<void> {
  if (window.turnstile) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const existing = document.querySelector<HTMLScriptElement>(`script[src="${SCRIPT}"]`);
    const script = existing ?? Object.assign(document.createElement('script'), { src: SCRIPT, async: true });
    script.addEventListener('load', () => resolve());
    script.addEventListener('error', () => reject(new Error('The bot check could not be loaded.')));
    if (!existing) document.head.appendChild(script);
  });
}

/** Cloudflare Turnstile, rendered only when /v1/auth/config names a site key. */
export function Turnstile({ siteKey, onToken }: { siteKey: string; onToken(token: string | null): void }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    let id: string | undefined;
    let live = true;
    loadScript()
      .then(() => {
        if (live && ref.current && window.turnstile) {
          id = window.turnstile.render(ref.current, {
            sitekey: siteKey,
            callback: (token) => onToken(token),
            'expired-callback': () => onToken(null),
          });
        }
      })
      .catch(() => onToken(null));
    return () => {
      live = false;
      if (id && window.turnstile) window.turnstile.remove(id);
    };
  }, [siteKey, onToken]);
  return <div ref={ref} data-testid="turnstile" />;
}
