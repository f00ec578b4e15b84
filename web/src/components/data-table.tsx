import { Group, Table, Text } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import type { ReactNode } from 'react';

/** Below Mantine's `sm` breakpoint (the navigation collapses there too) rows become cards. */
export const NARROW = '(max-width: 48em)';

export interface Column<T> {
  label: string;
  cell: (row: T) => ReactNode;
  /**
   * Where the value goes on a card: `title` on its first line, `status` on the right of that line,
   * `actions` as buttons at its foot (no label for these three); a plain field otherwise.
   */
  card?: 'title' | 'status' | 'actions';
  /** A plain field that takes the card's whole width (a text, not a short value beside another). */
  wide?: boolean;
  /** The table cell's widths, when its content needs them. */
  maw?: number;
  miw?: number;
}

interface Props<T> {
  /** The table's accessible name (and the cards list's). */
  label: string;
  rows: T[];
  rowKey: (row: T) => string;
  columns: Column<T>[];
  /** Below this width the table scrolls sideways inside its own region, never the page. */
  minWidth: number;
  /** data-testid of each row (a table row or a card). */
  rowTestId?: string;
  /** Marks a row, e.g. the current plan (aria-current, bold). */
  current?: (row: T) => boolean;
}

/**
 * Every list of the dashboard: a table on a wide screen, one card a row on a phone, with the row's
 * status and actions on the card's first lines so nothing needs scrolling sideways.
 */
export function DataTable<T>({ label, rows, rowKey, columns, minWidth, rowTestId, current }: Props<T>) {
  const narrow = useMediaQuery(NARROW, false, { getInitialValueInEffect: false });
  if (narrow) {
    const of = (kind: Column<T>['card']) => columns.filter((c) => c.card === kind);
    const fields = columns.filter((c) => !c.card);
    return (
      <ul aria-label={label} className="data-cards">
        {rows.map((row) => (
          <li
            key={rowKey(row)}
            data-testid={rowTestId}
            className="data-card"
            aria-current={current?.(row) ? 'true' : undefined}
            style={{ fontWeight: current?.(row) ? 700 : undefined }}
          >
            <Group justify="space-between" align="flex-start" wrap="nowrap" gap="xs">
              <div style={{ minWidth: 0, flex: 1, overflowWrap: 'anywhere' }}>
                {of('title').map((c) => (
                  <div key={c.label}>{c.cell(row)}</div>
                ))}
              </div>
              {of('status').map((c) => (
                <div key={c.label} style={{ flexShrink: 0 }}>
                  {c.cell(row)}
                </div>
              ))}
            </Group>
            {fields.length > 0 && (
              <dl className="data-card-fields">
                {fields.map((c) => (
                  <div key={c.label} className={c.wide ? 'data-card-wide' : undefined}>
                    <Text component="dt" size="xs" c="dimmed">
                      {c.label}
                    </Text>
                    <Text component="dd" size="sm">
                      {c.cell(row)}
                    </Text>
                  </div>
                ))}
              </dl>
            )}
            {of('actions').map((c) => (
              <Group key={c.label} gap="xs" mt="xs" wrap="wrap">
                {c.cell(row)}
              </Group>
            ))}
          </li>
        ))}
      </ul>
    );
  }
  return (
    // Focusable so keyboard users can scroll it too (axe: scrollable-region-focusable).
    <div role="region" aria-label={`${label} table`} tabIndex={0} style={{ overflowX: 'auto' }}>
      <div style={{ minWidth }}>
        <Table aria-label={label}>
          <Table.Thead>
            <Table.Tr>
              {columns.map((c) => (
                <Table.Th key={c.label}>{c.label}</Table.Th>
              ))}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((row) => (
              <Table.Tr
                key={rowKey(row)}
                data-testid={rowTestId}
                aria-current={current?.(row) ? 'true' : undefined}
                fw={current?.(row) ? 700 : undefined}
              >
                {columns.map((c) => (
                  <Table.Td key={c.label} maw={c.maw} miw={c.miw}>
                    {c.card === 'actions' ? (
                      <Group gap={4} wrap="nowrap">
                        {c.cell(row)}
                      </Group>
                    ) : (
                      c.cell(row)
                    )}
                  </Table.Td>
                ))}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </div>
    </div>
  );
}
