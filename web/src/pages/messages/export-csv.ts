import { api, ok, type Schemas } from '../../api/client';
import { toCsv } from '../../lib/csv';
import type { Query } from './filters';

const EXPORT_COLUMNS = [
  'id',
  'created_at',
  'direction',
  'status',
  'sender',
  'recipient',
  'body',
  'encrypted',
  'segments',
  'encoding',
  'device_id',
  'sim_subscription_id',
  'batch_id',
  'sent_at',
  'delivered_at',
  'failed_at',
  'received_at',
  'error_code',
  'error_message',
] as const satisfies ReadonlyArray<keyof Schemas['Message']>;

/**
 * Every message the filters match, page after page of the API's list, saved as a CSV file; `progress`
 * hears how many were read so far. Resolves to how many were saved, and the file's name.
 */
export async function exportMessages(
  query: Query,
  progress: (read: number) => void,
): Promise<{ count: number; file: string }> {
  const all: Schemas['Message'][] = [];
  let cursor: string | undefined;
  do {
    const page = await ok(api.GET('/v1/messages', { params: { query: { ...query, limit: 200, cursor } } }));
    all.push(...page.data);
    cursor = page.next_cursor ?? undefined;
    progress(all.length);
  } while (cursor);
  const csv = toCsv(
    EXPORT_COLUMNS,
    all.map((m) => EXPORT_COLUMNS.map((c) => m[c])),
  );
  const link = document.createElement('a');
  link.href = URL.createObjectURL(new Blob([csv], { type: 'text/csv' }));
  link.download = `messages-${new Date().toISOString().slice(0, 10)}.csv`;
  link.click();
  URL.revokeObjectURL(link.href);
  return { count: all.length, file: link.download };
}
