import { Anchor, Badge, Card, Group, Stack, Text } from '@mantine/core';
import { useEffect, useRef, useState } from 'react';
import { LIVE_MS } from '../lib/use-load';
import { api, ok, type Schemas } from '../api/client';
import { Page } from '../components/page';
import { Empty, ErrorState, Loading } from '../components/states';
import { ago, when } from '../lib/format';
import { Link } from '../lib/router';

/**
 * Inbound texts, newest first. The first page is the latest 50; after that the screen asks only for
 * what arrived since the newest it has (order=asc&from=…), so new texts appear without a reload.
 */
export function Inbox() {
  const [messages, setMessages] = useState<Schemas['Message'][] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [fresh, setFresh] = useState<Set<string>>(new Set());
  const newest = useRef<string | null>(null);

  useEffect(() => {
    let live = true;
    const merge = (incoming: Schemas['Message'][], mark: boolean) => {
      setMessages((current) => {
        const known = new Set((current ?? []).map((m) => m.id));
        const added = incoming.filter((m) => !known.has(m.id));
        if (mark && added.length) setFresh((f) => new Set([...f, ...added.map((m) => m.id)]));
        const all = [...added, ...(current ?? [])].sort((a, b) => b.created_at.localeCompare(a.created_at));
        if (all[0]) newest.current = all[0].created_at;
        return all;
      });
    };
    ok(api.GET('/v1/messages', { params: { query: { direction: 'inbound', limit: 50 } } })).then(
      (page) => live && merge(page.data, false),
      (e) => live && setError(e),
    );
    const timer = window.setInterval(async () => {
      try {
        const page = await ok(
          api.GET('/v1/messages', {
            params: {
              query: {
                direction: 'inbound',
                order: 'asc',
                limit: 100,
                ...(newest.current ? { from: newest.current } : {}),
              },
            },
          }),
        );
        if (live) {
          setError(null);
          merge(page.data, true);
        }
      } catch (e) {
        if (live) setError(e);
      }
    }, LIVE_MS);
    return () => {
      live = false;
      window.clearInterval(timer);
    };
    // Runs once: the poll reads the newest text from a ref.
  }, []);

  return (
    <Page title="Inbox">
      <Text size="sm" c="dimmed">
        Texts your phones received. New ones appear here as they arrive.
      </Text>
      {error !== null && <ErrorState error={error} />}
      {messages === null && error === null && <Loading />}
      {messages !== null && messages.length === 0 && (
        <Empty title="No texts received yet">When someone texts one of your phones, it shows up here.</Empty>
      )}
      <Stack gap="xs" aria-live="polite" aria-label="Received texts" component="section">
        {(messages ?? []).map((m) => (
          <Card withBorder key={m.id} data-testid="inbox-message" padding="sm">
            <Group justify="space-between" wrap="wrap">
              <Text fw={600}>{m.sender}</Text>
              <Group gap="xs">
                {fresh.has(m.id) && <Badge color="grape">new</Badge>}
                <Text size="xs" c="dimmed" title={when(m.received_at ?? m.created_at)}>
                  {ago(m.received_at ?? m.created_at)}
                </Text>
              </Group>
            </Group>
            <Text size="sm" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>
              {m.body}
            </Text>
            {m.sender && (
              <Anchor
                component={Link}
                href={`/inbox/${encodeURIComponent(m.sender)}`}
                size="sm"
                aria-label={`Reply to ${m.sender}`}
              >
                Reply
              </Anchor>
            )}
          </Card>
        ))}
      </Stack>
    </Page>
  );
}
