import { Alert, Anchor, Button, Card, Group, Stack, Text, Textarea } from '@mantine/core';
import { useState } from 'react';
import { countSegments } from '../../../src/messages/segments';
import { api, ok, type Schemas } from '../api/client';
import { Page } from '../components/page';
import { StatusBadge } from '../components/status-badge';
import { Empty, FormError, Load } from '../components/states';
import { when } from '../lib/format';
import { defaultCountry, toE164, whyNoReply } from '../lib/numbers';
import { messageState, withdrawn } from '../lib/outcomes';
import { Link } from '../lib/router';
import { LIVE_MS, useLoad } from '../lib/use-load';
import { useSubmit } from '../lib/use-submit';
import { messageContent } from '../components/message-content';

/** Every text to and from one number, oldest first (the API's search, kept to that exact number). */
async function conversation(number: string): Promise<Schemas['Message'][]> {
  const page = await ok(api.GET('/v1/messages', { params: { query: { q: number, order: 'desc', limit: 100 } } }));
  return page.data.filter((m) => m.sender === number || m.recipient === number).reverse();
}

/** The thread, how numbers read, and the number's opt-out when it is on the list. */
async function load(number: string) {
  const [messages, country] = await Promise.all([conversation(number), defaultCountry()]);
  const e164 = toE164(number, country);
  const optOut = e164
    ? (await ok(api.GET('/v1/opt-outs', { params: { query: { phone_number: e164, limit: 1 } } }))).data[0]
    : undefined;
  return { messages, country, optOut };
}

/** What happened to a text sent in the thread, and when: a failed one does not read "Sent". */
function outcome(m: Schemas['Message']): string {
  if (m.status === 'failed') return `${withdrawn(m) ? 'Not sent' : 'Failed'} ${when(m.failed_at ?? m.updated_at)}`;
  if (m.sent_at) return `Sent ${when(m.sent_at)}`;
  return `Waiting to be sent since ${when(m.created_at)}`;
}

/**
 * The thread with one number, from the Inbox's Reply: its texts both ways and a reply box. The
 * reply goes out through the phone that received the latest text from that number. A number the
 * API cannot send to gets no reply box, and one that opted out a warning.
 */
export function Thread({ number }: { number: string }) {
  const state = useLoad(() => load(number), [number], LIVE_MS);
  const [body, setBody] = useState('');
  const sending = useSubmit({ onDone: state.reload });
  const segments = countSegments(body);

  const reply = (messages: Schemas['Message'][]) =>
    sending.submit(async () => {
      const lastIn = [...messages].reverse().find((m) => m.direction === 'inbound');
      await ok(api.POST('/v1/messages', { body: { body, to: [number], device_id: lastIn?.device_id ?? null } }));
      setBody('');
    });

  return (
    <Page title={`Texts with ${number}`}>
      <Anchor component={Link} href="/inbox" size="sm">
        Back to the Inbox
      </Anchor>
      <Load state={state}>
        {({ messages, country, optOut }) => {
          const why = whyNoReply(number, country);
          return (
            <Stack gap="sm" maw={720}>
              {optOut && (
                <Alert color="yellow" title="This number has opted out" data-testid="opted-out-warning">
                  {optOut.source === 'inbound'
                    ? `It texted STOP (or another opt-out word) ${when(optOut.created_at)}.`
                    : `It was added to the opt-out list ${when(optOut.created_at)}.`}{' '}
                  Replies are not sent to it until it texts START, or you take it off the{' '}
                  <Anchor component={Link} href="/opt-outs" inherit c="inherit" underline="always">
                    opt-out list
                  </Anchor>
                  .
                </Alert>
              )}
              {messages.length === 0 && <Empty title="No texts with this number yet" />}
              <Stack
                gap="xs"
                component="ol"
                aria-label="Conversation"
                style={{ listStyle: 'none', padding: 0, margin: 0 }}
              >
                {messages.map((m) => {
                  const inbound = m.direction === 'inbound';
                  return (
                    <Card
                      component="li"
                      key={m.id}
                      withBorder
                      padding="xs"
                      data-testid="thread-message"
                      data-direction={m.direction}
                      maw="85%"
                      ml={inbound ? 0 : 'auto'}
                      bg={inbound ? undefined : 'var(--mantine-color-default-hover)'}
                    >
                      <Text size="sm" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
                        {messageContent(m)}
                      </Text>
                      {(m.attachments?.length ?? 0) > 0 && (
                        <Anchor component={Link} href={`/messages/${m.id}`} size="xs" data-testid="thread-attachments">
                          {m.attachments!.length === 1 ? '1 attachment' : `${m.attachments!.length} attachments`}
                        </Anchor>
                      )}
                      <Group gap="xs" justify="space-between" mt={4} wrap="wrap">
                        {/* In the text's colour, underlined: the anchor blue is too faint on a sent text's shade in dark mode. */}
                        <Anchor
                          component={Link}
                          href={`/messages/${m.id}`}
                          size="xs"
                          c="var(--mantine-color-text)"
                          underline="always"
                        >
                          {inbound ? `Received ${when(m.received_at ?? m.created_at)}` : outcome(m)}
                        </Anchor>
                        {!inbound && <StatusBadge status={messageState(m)} />}
                      </Group>
                      {!inbound && m.status === 'failed' && m.error_message && (
                        <Text
                          size="xs"
                          mt={4}
                          c={withdrawn(m) ? 'dimmed' : 'var(--pg-danger)'}
                          data-testid="thread-error"
                        >
                          {m.error_message}
                        </Text>
                      )}
                    </Card>
                  );
                })}
              </Stack>
              {why ? (
                <Text size="sm" c="dimmed" data-testid="no-reply">
                  No reply: {why}
                </Text>
              ) : (
                <Card withBorder component="form" onSubmit={reply(messages)} aria-label="Reply">
                  <Stack gap="xs">
                    <Textarea
                      label={`Reply to ${number}`}
                      autosize
                      minRows={2}
                      value={body}
                      onChange={(e) => setBody(e.currentTarget.value)}
                      description={`${[...body].length} characters · ${segments.segments} segment${segments.segments === 1 ? '' : 's'}`}
                    />
                    <FormError error={sending.error} />
                    <Group>
                      <Button type="submit" loading={sending.busy} disabled={body.trim() === '' || Boolean(optOut)}>
                        Send reply
                      </Button>
                    </Group>
                  </Stack>
                </Card>
              )}
            </Stack>
          );
        }}
      </Load>
    </Page>
  );
}
