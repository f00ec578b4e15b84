import { Anchor, Text } from '@mantine/core';
import type { Schemas } from '../api/client';
import { when } from '../lib/format';
import { messageState, withdrawn } from '../lib/outcomes';
import { Link } from '../lib/router';
import { DataTable } from './data-table';
import { StatusBadge } from './status-badge';
import { EncryptedMark } from './encrypted';
import { messageContent } from './message-content';

/** The latest thing that happened to a message. */
const shownAt = (m: Schemas['Message']) =>
  when(m.received_at ?? m.delivered_at ?? m.failed_at ?? m.sent_at ?? m.created_at);

/** Each row's time opens the message's own screen. */
export function MessagesTable({ messages, label }: { messages: Schemas['Message'][]; label: string }) {
  return (
    <DataTable
      label={label}
      rows={messages}
      rowKey={(m) => m.id}
      rowTestId="message-row"
      minWidth={640}
      columns={[
        {
          label: 'When',
          card: 'title',
          cell: (m) => (
            <Anchor
              component={Link}
              href={`/messages/${m.id}`}
              size="sm"
              aria-label={`${shownAt(m)}: open the message ${m.direction === 'inbound' ? `from ${m.sender}` : `to ${m.encrypted ? 'an encrypted number' : m.recipient}`}`}
            >
              {shownAt(m)}
            </Anchor>
          ),
        },
        {
          label: 'Number',
          card: 'title',
          cell: (m) =>
            m.encrypted ? (
              <EncryptedMark what="number" />
            ) : (
              <Text size="sm">{m.direction === 'inbound' ? `from ${m.sender}` : m.recipient}</Text>
            ),
        },
        {
          label: 'Message',
          maw: 320,
          wide: true,
          cell: (m) => (
            <>
              {m.encrypted ? (
                <EncryptedMark what="text" />
              ) : (
                <Text size="sm" component="span" display="block" style={{ wordBreak: 'break-word' }}>
                  {messageContent(m)}
                </Text>
              )}
              {m.error_message && (
                <Text size="xs" c={withdrawn(m) ? 'dimmed' : 'var(--pg-danger)'} component="span" display="block">
                  {withdrawn(m) ? m.error_message : `${m.error_code}: ${m.error_message}`}
                </Text>
              )}
            </>
          ),
        },
        { label: 'Status', card: 'status', cell: (m) => <StatusBadge status={messageState(m)} /> },
      ]}
    />
  );
}
