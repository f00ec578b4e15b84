import { Anchor, Button, Card, Group, SimpleGrid, Stack, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { api, ApiFailure, ok, type Schemas } from '../api/client';
import { Attachments } from '../components/attachments';
import { CopyId } from '../components/copy-value';
import { useConfirm } from '../components/confirm';
import { Page } from '../components/page';
import { StatusBadge } from '../components/status-badge';
import { FormError, Load } from '../components/states';
import { plural, when } from '../lib/format';
import { messageState, withdrawn } from '../lib/outcomes';
import { Link } from '../lib/router';
import { LIVE_MS, useLoad } from '../lib/use-load';
import { useSubmit } from '../lib/use-submit';
import { Deliveries } from './deliveries';
import { simLabel, simsOf } from '../lib/sims';
import { EncryptedMark } from '../components/encrypted';
import { messageContent } from '../components/message-content';

const ENCODINGS: Record<string, string> = { gsm7: 'GSM-7', ucs2: 'UCS-2', binary: 'binary' };

/** The phone of a message, or null once it was unpaired (its id no longer names a phone). */
async function phoneOf(id: string): Promise<Schemas['Device'] | null> {
  try {
    return (await ok(api.GET('/v1/devices/{id}', { params: { path: { id } } }))).device;
  } catch (error) {
    if (error instanceof ApiFailure && error.problem.status === 404) return null;
    throw error;
  }
}

function Fact({
  label,
  children,
  testId,
  component = 'p',
}: {
  label: string;
  children: ReactNode;
  testId?: string;
  /** A div when the fact holds more than words (a copy button). */
  component?: 'p' | 'div';
}) {
  return (
    <div>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text size="sm" data-testid={testId} component={component}>
        {children}
      </Text>
    </div>
  );
}

/** One message: every time it changed status, its phone and SIM, its size, its error and its webhooks. */
export function MessageDetail({ id }: { id: string }) {
  const state = useLoad(
    async () => {
      const { message } = await ok(api.GET('/v1/messages/{id}', { params: { path: { id } } }));
      const [phone, webhooks] = await Promise.all([
        phoneOf(message.device_id),
        ok(api.GET('/v1/webhooks')).then((r) => r.data),
      ]);
      return { message, phone, webhooks };
    },
    [id],
    // Until it is final, a message still moves (sent, then delivered): follow it.
    LIVE_MS,
  );
  const confirm = useConfirm();
  const actions = useSubmit({ onDone: state.reload });
  async function cancel(message: Schemas['Message']) {
    const yes = await confirm({
      title: 'Cancel this message?',
      message: `The text to ${message.recipient} is not sent; the rest of its send still goes out.`,
      confirmLabel: 'Cancel the message',
      cancelLabel: 'Keep sending',
    });
    if (yes)
      await actions.run(() => ok(api.POST('/v1/messages/{id}/cancel', { params: { path: { id: message.id } } })));
  }
  return (
    <Page title="Message">
      <Anchor component={Link} href="/messages" size="sm">
        ← All messages
      </Anchor>
      <Load state={state}>
        {({ message: m, phone, webhooks }) => {
          const sim = phone && simsOf(phone).find((s) => s.subscription_id === m.sim_subscription_id);
          const times: Array<[string, string | null]> =
            m.direction === 'inbound'
              ? [['Received', m.received_at]]
              : [
                  ['Accepted', m.created_at],
                  ['Taken by the phone', m.dispatched_at],
                  ['Sent', m.sent_at],
                  ['Delivered', m.delivered_at],
                  ['Failed', m.failed_at],
                ];
          return (
            <Stack>
              <Card withBorder>
                <Stack gap="sm">
                  <Group justify="space-between" wrap="wrap">
                    <Text fw={600} data-testid="message-party">
                      {m.direction === 'inbound'
                        ? `From ${m.sender}`
                        : m.encrypted
                          ? 'To an encrypted number'
                          : `To ${m.recipient}`}
                    </Text>
                    <span data-testid="message-status">
                      <StatusBadge status={messageState(m)} />
                    </span>
                  </Group>
                  {/* Cancellable while no phone has taken it. */}
                  {m.direction === 'outbound' && m.status === 'queued' && (
                    <Group>
                      <Button size="xs" color="red.9" variant="outline" onClick={() => void cancel(m)}>
                        <span style={{ color: 'var(--pg-danger)' }}>Cancel this message</span>
                      </Button>
                    </Group>
                  )}
                  <FormError error={actions.error} />
                  {m.encrypted ? (
                    <EncryptedMark what="text" />
                  ) : (
                    <Text style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>{messageContent(m)}</Text>
                  )}
                  {(m.error_code || m.error_message) && (
                    <Text size="sm" c={withdrawn(m) ? 'dimmed' : 'var(--pg-danger)'} data-testid="message-error">
                      {[m.error_code, m.error_message].filter(Boolean).join(': ')}
                    </Text>
                  )}
                  <SimpleGrid cols={{ base: 1, xs: 2, md: 3 }}>
                    {times
                      .filter(([, at]) => at)
                      .map(([label, at]) => (
                        <Fact key={label} label={label} testId={`time-${label.toLowerCase().replace(/\s+/g, '-')}`}>
                          {when(at)}
                        </Fact>
                      ))}
                    <Fact label="Phone" testId="message-phone">
                      {phone ? (
                        <Anchor component={Link} href="/phones">
                          {phone.name}
                        </Anchor>
                      ) : (
                        'a phone no longer paired'
                      )}
                    </Fact>
                    <Fact label="SIM" testId="message-sim">
                      {sim
                        ? simLabel(sim)
                        : m.sim_subscription_id !== null
                          ? `SIM ${m.sim_subscription_id}`
                          : 'the phone’s default'}
                    </Fact>
                    <Fact label="Size" testId="message-size">
                      {plural(m.segments, 'segment')} · {m.encrypted ? 'not known (encrypted)' : ENCODINGS[m.encoding]}
                    </Fact>
                    {m.batch_id && (
                      <Fact label="Batch">
                        <Anchor component={Link} href={`/batches/${m.batch_id}`}>
                          Open the batch
                        </Anchor>
                      </Fact>
                    )}
                    <Fact label="Message ID" component="div">
                      <CopyId id={m.id} of="the message" testId="message-id" />
                    </Fact>
                    {m.batch_id && (
                      <Fact label="Batch ID" component="div">
                        <CopyId id={m.batch_id} of="the batch" testId="message-batch-id" />
                      </Fact>
                    )}
                  </SimpleGrid>
                </Stack>
              </Card>
              <Attachments message={m} />
              <Deliveries webhooks={webhooks} tick={0} messageId={m.id} />
            </Stack>
          );
        }}
      </Load>
    </Page>
  );
}
