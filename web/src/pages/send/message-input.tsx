import { Textarea } from '@mantine/core';
import { countSegments } from '../../../../src/messages/segments';
import type { Personalised } from '../../lib/personalise';

/**
 * The Message box with its characters, encoding and segments. Each recipient's own text may be
 * longer than the template: what one may cost is the longest's.
 */
export function MessageInput({
  body,
  personal,
  onChange,
}: {
  body: string;
  personal: Personalised | null;
  onChange(body: string): void;
}) {
  const segments = personal ? personal.longest : countSegments(body);
  const chars = personal ? personal.longest.chars : [...body].length;
  return (
    <Textarea
      label="Message"
      required
      autosize
      minRows={3}
      value={body}
      onChange={(e) => onChange(e.currentTarget.value)}
      description={
        <span data-testid="segment-counter">
          {personal && 'Longest text: '}
          {chars} character{chars === 1 ? '' : 's'} · {segments.encoding === 'gsm7' ? 'GSM-7' : 'UCS-2'} ·{' '}
          {segments.segments} segment{segments.segments === 1 ? '' : 's'}
        </span>
      }
    />
  );
}
