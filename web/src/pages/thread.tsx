import { Anchor, Button, Card, Group, Stack, Text, Textarea } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { countSegments } from '../../../src/messages/segments';
import { api, ok, type Schemas } from '../api/client';
import { Page } from '../components/page';
import { StatusBadge } from '../components/status-badge';
import { Empty, FormError, Load } from '../components/states';
import { when } from '../lib/format';
import { messageState } from '../lib/outcomes';
import { Link } from '../lib/router';
import { LIVE_MS, useLoad } from '../lib/use-load';

/** Every text to and from one number, oldest first (the API's search, kept to that exact number). */
async function conversation(number: string): Promise<Schemas['Message'][]> {
  const page = await ok(api.GET('/v1/messages', { params: { query: { q: number, order: 'desc', limit: 100 } } }));
  return page.data.filter((m) => m.sender === number || m.recipient === number).reverse();
}

/**
 * The thread with one number, from the Inbox's Reply: its texts both ways and a reply box. The
 * reply goes out through the phone that received the latest text from that number.
 */
export function Thread({ number }: { number: string }) {
  const state = useLoad(() => conversation(number), [number], LIVE_MS);
  const [body, setBody] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const segments = countSegments(body);

  async function reply(event: FormEvent, messages: Schemas['Message'][]) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    const lastIn = [...messages].reverse().find((m) => m.direction === 'inbound');
    try {
      await ok(api.POST('/v1/messages', { body: { body, to: [number], device_id: lastIn?.device_id ?? null } }));
      setBody('');
      state.reload();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  }

  return (
    <Page title={`Texts with ${number}`}>
      <Anchor component={Link} href="/inbox" size="sm">
        Back to the Inbox
      </Anchor>
      <Load state={state}>
        {(messages) => (
          <Stack gap="sm" maw={720}>
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
                      {m.body}
                    </Text>
                    <Group gap="xs" justify="space-between" mt={4} wrap="wrap">
                      <Anchor component={Link} href={`/messages/${m.id}`} size="xs">
                        {inbound ? 'Received' : 'Sent'} {when(m.received_at ?? m.sent_at ?? m.created_at)}
                      </Anchor>
                      {!inbound && <StatusBadge status={messageState(m)} />}
                    </Group>
                  </Card>
                );
              })}
            </Stack>
            <Card withBorder component="form" onSubmit={(e) => void reply(e, messages)} aria-label="Reply">
              <Stack gap="xs">
                <Textarea
                  label={`Reply to ${number}`}
                  autosize
                  minRows={2}
                  value={body}
                  onChange={(e) => setBody(e.currentTarget.value)}
                  description={`${[...body].length} characters · ${segments.segments} segment${segments.segments === 1 ? '' : 's'}`}
                />
                <FormError error={error} />
                <Group>
                  <Button type="submit" loading={busy} disabled={body.trim() === ''}>
                    Send reply
                  </Button>
                </Group>
              </Stack>
            </Card>
          </Stack>
        )}
      </Load>
    </Page>
  );
}
