import { Anchor, Table, Text } from '@mantine/core';
import { TableScroll } from './table-scroll';
import type { Schemas } from '../api/client';
import { when } from '../lib/format';
import { Link } from '../lib/router';
import { StatusBadge } from './status-badge';

/** The latest thing that happened to a message. */
const shownAt = (m: Schemas['Message']) =>
  when(m.received_at ?? m.delivered_at ?? m.failed_at ?? m.sent_at ?? m.created_at);

/** Each row's time opens the message's own screen. */
export function MessagesTable({ messages, label }: { messages: Schemas['Message'][]; label: string }) {
  return (
    <TableScroll label={`${label} table`} minWidth={640}>
      <Table aria-label={label}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>When</Table.Th>
            <Table.Th>Number</Table.Th>
            <Table.Th>Message</Table.Th>
            <Table.Th>Status</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {messages.map((m) => (
            <Table.Tr key={m.id} data-testid="message-row">
              <Table.Td>
                <Anchor
                  component={Link}
                  href={`/messages/${m.id}`}
                  size="sm"
                  aria-label={`${shownAt(m)}: open the message ${m.direction === 'inbound' ? `from ${m.sender}` : `to ${m.recipient}`}`}
                >
                  {shownAt(m)}
                </Anchor>
              </Table.Td>
              <Table.Td>
                <Text size="sm">{m.direction === 'inbound' ? `from ${m.sender}` : m.recipient}</Text>
              </Table.Td>
              <Table.Td maw={320}>
                <Text size="sm" style={{ wordBreak: 'break-word' }}>
                  {m.body}
                </Text>
                {m.error_message && (
                  <Text size="xs" c="red.9">
                    {m.error_code}: {m.error_message}
                  </Text>
                )}
              </Table.Td>
              <Table.Td>
                <StatusBadge status={m.status} />
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </TableScroll>
  );
}
