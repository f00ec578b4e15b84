import { Badge } from '@mantine/core';
import type { ReactNode } from 'react';
import type { Schemas } from '../api/client';
import { plural } from '../lib/format';

type Content = { body: string; data: Schemas['DataContent'] };

/** How many bytes padded base64 holds: three for every four characters, less its padding. */
export function byteCount(base64: string): number {
  const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
  return Math.floor((base64.length * 3) / 4) - padding;
}

/** A data SMS named by its port and size: its bytes are not text and are never shown as such. */
export function dataLabel(data: NonNullable<Schemas['DataContent']>): string {
  const bytes = byteCount(data.base64);
  return `Data SMS to port ${data.port}, ${plural(bytes, 'byte')}`;
}

/** A message's or a send's text, or for a data SMS its label. */
export function messageContent(content: Content): ReactNode {
  if (!content.data) return content.body;
  return (
    <Badge
      component="span"
      variant="light"
      color="gray"
      tt="none"
      data-testid="data-sms"
      style={{ whiteSpace: 'normal', height: 'auto' }}
    >
      {dataLabel(content.data)}
    </Badge>
  );
}
