import { Anchor, Badge, Card, Group, Stack, Text, TextInput } from '@mantine/core';
import { useRef, useState } from 'react';
import { LIVE_MS, useLoad } from '../lib/use-load';
import { api, ok, type Schemas } from '../api/client';
import { Page } from '../components/page';
import { Empty, Load } from '../components/states';
import { ago, count, plural, when } from '../lib/format';
import { defaultCountry, whyNoReply } from '../lib/numbers';
import { Link } from '../lib/router';
import { messageContent } from '../components/message-content';

interface Held {
  /** The search the conversations were listed for. */
  q: string;
  /** Latest first. */
  conversations: Schemas['Conversation'][];
  /** How numbers without a country code read (the API's DEFAULT_COUNTRY). */
  country: string | null;
  /** The newest received text seen: each poll asks only for what came since. */
  newest: string | null;
  /** Ids of the received texts of the last poll (its `from` is inclusive: the newest comes again). */
  seen: Set<string>;
  /** Numbers whose texts arrived while the screen was open. */
  fresh: Set<string>;
}

const conversationsFor = (q: string) =>
  ok(api.GET('/v1/conversations', { params: { query: { limit: 50, ...(q ? { q } : {}) } } })).then((r) => r.data);

const newestReceived = () =>
  ok(api.GET('/v1/messages', { params: { query: { direction: 'inbound', limit: 1 } } })).then((r) => r.data[0]);

const receivedSince = (from: string) =>
  ok(api.GET('/v1/messages', { params: { query: { direction: 'inbound', order: 'asc', limit: 100, from } } })).then(
    (r) => r.data,
  );

/**
 * The numbers that texted the account, one conversation each, latest first, with a search over
 * numbers and texts. Each of the screen's polls (useLoad, every LIVE_MS) asks only for texts that
 * arrived since the newest it has (order=asc&from=…); when there are some, the conversations are
 * listed again and theirs are marked new, without a reload.
 */
export function Inbox() {
  const [q, setQ] = useState('');
  const held = useRef<Held | null>(null);
  const state = useLoad(
    async () => {
      const current = held.current;
      if (!current || current.q !== q) {
        const [conversations, newest, country] = await Promise.all([
          conversationsFor(q),
          current ? Promise.resolve(undefined) : newestReceived(),
          defaultCountry(),
        ]);
        held.current = {
          q,
          conversations,
          country,
          newest: current ? current.newest : (newest?.created_at ?? null),
          seen: current ? current.seen : new Set(newest ? [newest.id] : []),
          fresh: current?.fresh ?? new Set(),
        };
        return held.current;
      }
      const since = current.newest
        ? await receivedSince(current.newest)
        : [await newestReceived()].filter((m) => m !== undefined);
      const added = since.filter((m) => !current.seen.has(m.id));
      if (added.length === 0) return current;
      const next: Held = {
        ...current,
        conversations: await conversationsFor(q),
        newest: since[since.length - 1].created_at,
        seen: new Set(since.map((m) => m.id)),
        fresh: new Set([...current.fresh, ...added.flatMap((m) => (m.sender ? [m.sender] : []))]),
      };
      held.current = next;
      return next;
    },
    [q],
    LIVE_MS,
  );

  return (
    <Page title="Inbox">
      <Text size="sm" c="dimmed">
        Conversations with the numbers that texted your phones, latest first. New texts appear here as they arrive.
      </Text>
      <TextInput
        type="search"
        label="Search conversations"
        description="A number or words of a text"
        value={q}
        onChange={(event) => setQ(event.currentTarget.value)}
        maw={420}
      />
      <Load state={state}>
        {({ conversations, fresh, country, q: searched }) => (
          <>
            {conversations.length === 0 &&
              (searched ? (
                <Empty title="No conversation matches">No number or text holds “{searched}”.</Empty>
              ) : (
                <Empty title="No texts received yet">When someone texts one of your phones, it shows up here.</Empty>
              ))}
            <Stack gap="xs" aria-live="polite" aria-label="Conversations" component="section">
              {conversations.map((c) => (
                <Conversation key={c.contact} conversation={c} fresh={fresh.has(c.contact)} country={country} />
              ))}
            </Stack>
          </>
        )}
      </Load>
    </Page>
  );
}

function Conversation({
  conversation: c,
  fresh,
  country,
}: {
  conversation: Schemas['Conversation'];
  fresh: boolean;
  country: string | null;
}) {
  const m = c.last_message;
  const at = m.received_at ?? m.created_at;
  return (
    <Card withBorder data-testid="conversation" data-contact={c.contact} padding="sm">
      <Group justify="space-between" wrap="wrap">
        <Text fw={600} component="h2" fz="md">
          {c.contact}
        </Text>
        <Group gap="xs">
          {fresh && <Badge color="grape">new</Badge>}
          <Text size="xs" c="dimmed" title={when(at)}>
            {ago(at)}
          </Text>
        </Group>
      </Group>
      <Text size="sm" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }} lineClamp={3}>
        {m.direction === 'outbound' && <span>You: </span>}
        {messageContent(m)}
      </Text>
      <Group justify="space-between" wrap="wrap" gap="xs">
        <Text size="xs" c="dimmed" data-testid="conversation-count">
          {plural(c.text_count, 'text')}, {count(c.received_count)} received
        </Text>
        <ReplyLink sender={c.contact} country={country} />
      </Group>
    </Card>
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
