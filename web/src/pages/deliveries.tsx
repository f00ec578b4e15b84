import { Button, Code, Group, Modal, Select, Stack, Text } from '@mantine/core';
import { DataTable } from '../components/data-table';
import { useState } from 'react';
import { api, ok, type Schemas } from '../api/client';
import { StatusBadge } from '../components/status-badge';
import { Empty, FormError, Load } from '../components/states';
import { CopyId } from '../components/copy-value';
import { deliveryAnswer, plainDeliveryError } from '../lib/delivery-errors';
import { ago, when } from '../lib/format';
import { LIVE_MS, useLoad } from '../lib/use-load';
import { useSubmit } from '../lib/use-submit';

/**
 * The delivery log: newest first, each row opens its attempts, answer and payload, and can be
 * redelivered (a new delivery of the same event, signed with the current secret).
 */
export function Deliveries({
  webhooks,
  tick,
  messageId,
}: {
  webhooks: Schemas['Webhook'][];
  tick: number;
  /** Only this message's deliveries (the message detail screen). */
  messageId?: string;
}) {
  const [webhookId, setWebhookId] = useState('');
  const [status, setStatus] = useState('');
  const [open, setOpen] = useState<Schemas['Delivery'] | null>(null);
  const [redelivering, setRedelivering] = useState<string | null>(null);
  const actions = useSubmit();
  const state = useLoad(
    () =>
      ok(
        api.GET('/v1/webhooks/deliveries', {
          params: {
            query: {
              limit: 50,
              webhook_id: webhookId || undefined,
              message_id: messageId,
              status: (status || undefined) as Schemas['Delivery']['status'] | undefined,
            },
          },
        }),
      ).then((r) => r.data),
    [webhookId, status, tick, messageId],
    LIVE_MS,
  );

  /** Opens a delivery's details: from this page of the log, else fetched (a link may point past it). */
  async function openById(id: string) {
    const here = state.data?.find((d) => d.id === id);
    if (here) return setOpen(here);
    await actions.run(async () =>
      setOpen((await ok(api.GET('/v1/webhooks/deliveries/{id}', { params: { path: { id } } }))).delivery),
    );
  }

  const redeliver = (delivery: Schemas['Delivery']) =>
    actions.run(async () => {
      setRedelivering(delivery.id);
      try {
        await ok(api.POST('/v1/webhooks/deliveries/{id}/redeliver', { params: { path: { id: delivery.id } } }));
        state.reload();
      } finally {
        setRedelivering(null);
      }
    });

  return (
    <Stack component="section" aria-label={messageId ? 'Webhook deliveries of this message' : 'Delivery log'}>
      <Text fw={600} component="h2" size="lg">
        {messageId ? 'Webhook deliveries of this message' : 'Delivery log'}
      </Text>
      <Group grow wrap="wrap">
        <Select
          label="Webhook"
          data={[
            { value: '', label: 'All webhooks' },
            ...webhooks.map((w) => ({ value: w.id, label: w.name ?? w.url })),
          ]}
          value={webhookId}
          onChange={(v) => setWebhookId(v ?? '')}
          allowDeselect={false}
        />
        <Select
          label="Delivery status"
          data={[
            { value: '', label: 'Any' },
            ...['pending', 'retrying', 'delivered', 'failed'].map((s) => ({ value: s, label: s })),
          ]}
          value={status}
          onChange={(v) => setStatus(v ?? '')}
          allowDeselect={false}
        />
      </Group>
      <FormError error={actions.error} />
      <Load state={state}>
        {(rows) =>
          rows.length === 0 ? (
            messageId ? (
              <Empty title="No webhook deliveries">No webhook took an event of this message.</Empty>
            ) : (
              <Empty title="No deliveries yet">Send a test ping to see one here.</Empty>
            )
          ) : (
            <DataTable
              label="Deliveries"
              rows={rows}
              rowKey={(d) => d.id}
              rowTestId="delivery-row"
              minWidth={560}
              columns={[
                {
                  label: 'Created',
                  card: 'title',
                  cell: (d) => (
                    <Button variant="subtle" size="compact-sm" onClick={() => setOpen(d)}>
                      {when(d.created_at)}
                    </Button>
                  ),
                },
                { label: 'Event', card: 'title', cell: (d) => d.event },
                { label: 'Status', card: 'status', cell: (d) => <StatusBadge status={shownStatus(d)} /> },
                { label: 'Attempts', cell: (d) => d.attempt_count },
                {
                  label: 'Answer',
                  maw: 260,
                  cell: (d) => (
                    <Text size="sm" component="span" data-testid="delivery-answer" title={d.error ?? undefined}>
                      {deliveryAnswer(d)}
                    </Text>
                  ),
                },
                {
                  label: 'Redelivery',
                  wide: true,
                  cell: (d) => <RedeliveryLinks delivery={d} rows={rows} open={(id) => void openById(id)} />,
                },
                {
                  label: 'Actions',
                  card: 'actions',
                  cell: (d) => (
                    <Button
                      variant="default"
                      size="compact-sm"
                      loading={redelivering === d.id}
                      onClick={() => void redeliver(d)}
                    >
                      Redeliver
                    </Button>
                  ),
                },
              ]}
            />
          )
        }
      </Load>
      {open && (
        <Modal opened onClose={() => setOpen(null)} title={`Delivery of ${open.event}`} size="lg">
          <Stack gap="xs">
            <Text size="sm">To {open.url}</Text>
            <Group gap="xs" wrap="nowrap">
              <Text size="sm">Delivery ID</Text>
              <CopyId id={open.id} of="the delivery" testId="delivery-id" />
            </Group>
            {open.message_id && (
              <Group gap="xs" wrap="nowrap">
                <Text size="sm">Message ID</Text>
                <CopyId id={open.message_id} of="the delivery’s message" testId="delivery-message-id" />
              </Group>
            )}
            <Text size="sm">
              {open.attempt_count} attempt{open.attempt_count === 1 ? '' : 's'} · last {when(open.last_attempt_at)}
              {open.next_attempt_at && ` · next ${when(open.next_attempt_at)}`}
            </Text>
            <Text size="sm" data-testid="delivery-summary">
              Answer: {deliveryAnswer(open)}
            </Text>
            <RedeliveryLinks
              delivery={open}
              rows={state.data ?? []}
              open={(id) => void openById(id)}
              testId="delivery-detail-links"
            />
            {open.error && plainDeliveryError(open.error) && (
              <Text size="xs" c="dimmed" style={{ wordBreak: 'break-word' }}>
                As the connection reported it: {open.error}
              </Text>
            )}
            {open.response_excerpt && <Code block>{open.response_excerpt}</Code>}
            <Text size="sm" fw={600}>
              Payload
            </Text>
            <Code block>{JSON.stringify(open.payload, null, 2)}</Code>
          </Stack>
        </Modal>
      )}
    </Stack>
  );
}

/** A delivery that a redelivery reached the receiver for is not retried: "redelivered", not failing. */
export const shownStatus = (d: Schemas['Delivery']) => (d.superseded_by ? 'redelivered' : d.status);

/**
 * How a delivery and its redeliveries link: a redelivery names the delivery it repeats (and, when it
 * failed while that one still retries, says so), an original names its redeliveries.
 */
function RedeliveryLinks({
  delivery: d,
  rows,
  open,
  testId = 'delivery-links',
}: {
  delivery: Schemas['Delivery'];
  rows: Schemas['Delivery'][];
  open: (id: string) => void;
  testId?: string;
}) {
  const original = d.redelivery_of ? rows.find((r) => r.id === d.redelivery_of) : undefined;
  if (!d.redelivery_of && d.redeliveries.length === 0) return <Text size="sm">—</Text>;
  return (
    <Stack gap={2} align="flex-start" data-testid={testId}>
      {d.redelivery_of && (
        <Button variant="subtle" size="compact-sm" onClick={() => open(d.redelivery_of!)}>
          Redelivery of an earlier delivery
        </Button>
      )}
      {d.status === 'failed' && original?.status === 'retrying' && (
        <Text size="xs">This redelivery failed; the original keeps its retries ({ago(original.next_attempt_at)}).</Text>
      )}
      {d.superseded_by && <Text size="xs">Delivered by its redelivery, so it is not retried.</Text>}
      {d.redeliveries.map((id, i) => (
        <Button key={id} variant="subtle" size="compact-sm" onClick={() => open(id)}>
          {d.redeliveries.length === 1 ? 'Open its redelivery' : `Open redelivery ${i + 1}`}
        </Button>
      ))}
    </Stack>
  );
}
