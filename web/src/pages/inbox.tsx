import { Anchor, Badge, Card, Group, Stack, Text } from '@mantine/core';
import { useRef } from 'react';
import { LIVE_MS, useLoad } from '../lib/use-load';
import { api, ok, type Schemas } from '../api/client';
import { Page } from '../components/page';
import { Empty, Load } from '../components/states';
import { ago, when } from '../lib/format';
import { defaultCountry, whyNoReply } from '../lib/numbers';
import { Link } from '../lib/router';
import { messageContent } from '../components/message-content';

interface Received {
  /** Newest first. */
  messages: Schemas['Message'][];
  /** How numbers without a country code read (the API's DEFAULT_COUNTRY). */
  country: string | null;
  /** Texts that arrived while the screen was open. */
  fresh: Set<string>;
}

/** The next page of inbound texts: the latest 50 first, then only what arrived since the newest one held. */
function nextPage(held: Received | null) {
  const newest = held?.messages[0]?.created_at;
  const query = held
    ? { direction: 'inbound' as const, order: 'asc' as const, limit: 100, ...(newest ? { from: newest } : {}) }
    : { direction: 'inbound' as const, limit: 50 };
  return ok(api.GET('/v1/messages', { params: { query } }));
}

/**
 * Inbound texts, newest first. The first page is the latest 50; after that each of the screen's
 * polls (useLoad, every LIVE_MS) asks only for what arrived since the newest it has
 * (order=asc&from=…) and adds it, so new texts appear without a reload, marked new.
 */
export function Inbox() {
  const held = useRef<Received | null>(null);
  const state = useLoad(
    async () => {
      const [page, country] = await Promise.all([nextPage(held.current), defaultCountry()]);
      // Read again after the wait: what another poll added meanwhile is kept.
      const current = held.current;
      const known = new Set(current?.messages.map((m) => m.id));
      const added = page.data.filter((m) => !known.has(m.id));
      const next: Received = {
        country,
        messages: [...added, ...(current?.messages ?? [])].sort((a, b) => b.created_at.localeCompare(a.created_at)),
        fresh: current ? new Set([...current.fresh, ...added.map((m) => m.id)]) : new Set(),
      };
      held.current = next;
      return next;
    },
    [],
    LIVE_MS,
  );

  return (
    <Page title="Inbox">
      <Text size="sm" c="dimmed">
        Texts your phones received. New ones appear here as they arrive.
      </Text>
      <Load state={state}>
        {({ messages, fresh, country }) => (
          <>
            {messages.length === 0 && (
              <Empty title="No texts received yet">When someone texts one of your phones, it shows up here.</Empty>
            )}
            <Stack gap="xs" aria-live="polite" aria-label="Received texts" component="section">
              {messages.map((m) => (
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
                    {messageContent(m)}
                  </Text>
                  {m.sender && <ReplyLink sender={m.sender} country={country} />}
                </Card>
              ))}
            </Stack>
          </>
        )}
      </Load>
    </Page>
  );
}

/** Reply where the API can send to the sender; else the thread to read, and why there is no reply. */
function ReplyLink({ sender, country }: { sender: string; country: string | null }) {
  const href = `/inbox/${encodeURIComponent(sender)}`;
  const why = whyNoReply(sender, country);
  if (!why)
    return (
      <Anchor component={Link} href={href} size="sm" aria-label={`Reply to ${sender}`}>
        Reply
      </Anchor>
    );
  return (
    <Group gap="xs" wrap="wrap">
      <Text size="sm" c="dimmed" data-testid="no-reply">
        No reply: {why}
      </Text>
      <Anchor component={Link} href={href} size="sm" aria-label={`Open the thread with ${sender}`}>
        Open the thread
      </Anchor>
    </Group>
  );
}
