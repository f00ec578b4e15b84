import type { ReactNode } from 'react';

/**
 * A wide table on a narrow screen scrolls sideways inside this region, never the page. The region
 * takes focus so keyboard users can scroll it too (axe: scrollable-region-focusable).
 */
export function TableScroll({ label, minWidth, children }: { label: string; minWidth: number; children: ReactNode }) {
  return (
    <div role="region" aria-label={label} tabIndex={0} style={{ overflowX: 'auto' }}>
      <div style={{ minWidth }}>{children}</div>
    </div>
  );
}
