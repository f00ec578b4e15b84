import { Badge } from '@mantine/core';

const COLORS: Record<string, string> = {
  delivered: 'teal',
  sent: 'blue',
  dispatched: 'cyan',
  queued: 'gray',
  received: 'grape',
  failed: 'red',
  cancelled: 'gray',
  'opted out': 'gray',
  'partly failed': 'orange',
  unknown: 'orange',
  completed: 'teal',
  processing: 'blue',
  scheduled: 'violet',
  pending: 'gray',
  retrying: 'orange',
  redelivered: 'teal',
  online: 'teal',
  offline: 'gray',
  paused: 'orange',
  active: 'teal',
  revoked: 'red',
  expired: 'gray',
};

/**
 * Dark text on a light badge: readable at any size (axe checks the contrast). A badge never shrinks
 * below its word: Mantine's would cut "retrying" to "RETRY…" in a tight cell.
 */
export function StatusBadge({ status }: { status: string }) {
  return (
    <Badge
      color={COLORS[status] ?? 'gray'}
      variant="light"
      autoContrast
      styles={{ root: { flexShrink: 0, minWidth: 'max-content' }, label: { overflow: 'visible' } }}
    >
      <span style={{ color: 'var(--pg-badge-text)' }}>{status}</span>
    </Badge>
  );
}
