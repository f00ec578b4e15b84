import { Anchor, Button, Card, Group, Stack, Text, Textarea, TextInput } from '@mantine/core';
import { useState } from 'react';
import { api, ok, type Schemas } from '../api/client';
import { useConfirm } from '../components/confirm';
import { DataTable } from '../components/data-table';
import { Page } from '../components/page';
import { Empty, FormError, Load } from '../components/states';
import { when } from '../lib/format';
import { Link } from '../lib/router';
import { useLoad } from '../lib/use-load';
import { useSubmit } from '../lib/use-submit';

type Template = Schemas['Template'];

/** A template's name and text, for a new one or one being changed. */
function TemplateForm({
  label,
  start,
  submitLabel,
  onSave,
  onCancel,
}: {
  label: string;
  start?: Template;
  submitLabel: string;
  onSave(input: { name: string; body: string }): Promise<void>;
  onCancel?(): void;
}) {
  const [name, setName] = useState(start?.name ?? '');
  const [body, setBody] = useState(start?.body ?? '');
  const form = useSubmit();
  const field = form.field;
  const submit = form.submit(async () => {
    await onSave({ name, body });
    if (!start) {
      setName('');
      setBody('');
    }
  });

  return (
    <Card withBorder component="form" onSubmit={submit} noValidate aria-label={label}>
      <Stack gap="xs">
        <TextInput
          label="Name"
          required
          value={name}
          error={field('name')}
          onChange={(e) => setName(e.currentTarget.value)}
        />
        <Textarea
          label="Text"
          required
          autosize
          minRows={2}
          description="Write {name} (any column of the CSV you send to) where each recipient's own value goes."
          value={body}
          error={field('body')}
          onChange={(e) => setBody(e.currentTarget.value)}
        />
        {!field('name') && !field('body') && <FormError error={form.error} />}
        <Group>
          <Button type="submit">{submitLabel}</Button>
          {onCancel && (
            <Button variant="default" onClick={onCancel}>
              Cancel
            </Button>
          )}
        </Group>
      </Stack>
    </Card>
  );
}

/** The account's saved message texts: adding, changing and deleting them. The Send screen offers them. */
export function Templates() {
  const confirm = useConfirm();
  const state = useLoad(
    () => ok(api.GET('/v1/templates', { params: { query: { limit: 200 } } })).then((r) => r.data),
    [],
  );
  const [editing, setEditing] = useState<string | null>(null);
  const actions = useSubmit({ onDone: state.reload });

  async function remove(template: Template) {
    const yes = await confirm({
      title: `Delete “${template.name}”?`,
      message: 'Sends made with it keep their texts.',
      confirmLabel: 'Delete',
    });
    if (yes) await actions.run(() => ok(api.DELETE('/v1/templates/{id}', { params: { path: { id: template.id } } })));
  }

  return (
    <Page title="Message templates">
      <Anchor component={Link} href="/send" size="sm">
        ← Send a text
      </Anchor>
      <TemplateForm
        label="New template"
        submitLabel="Save the template"
        onSave={async (input) => {
          await ok(api.POST('/v1/templates', { body: input }));
          state.reload();
        }}
      />
      <FormError error={actions.error} />
      <Load state={state}>
        {(rows) =>
          rows.length === 0 ? (
            <Empty title="No saved templates">Templates you save here or on the Send screen appear here.</Empty>
          ) : (
            <Stack>
              {editing &&
                rows
                  .filter((t) => t.id === editing)
                  .map((t) => (
                    <TemplateForm
                      key={t.id}
                      label={`Change ${t.name}`}
                      start={t}
                      submitLabel="Save the changes"
                      onCancel={() => setEditing(null)}
                      onSave={async (input) => {
                        await ok(api.PATCH('/v1/templates/{id}', { params: { path: { id: t.id } }, body: input }));
                        setEditing(null);
                        state.reload();
                      }}
                    />
                  ))}
              <DataTable
                label="Templates"
                rows={rows}
                rowKey={(t) => t.id}
                rowTestId="template-row"
                minWidth={560}
                columns={[
                  { label: 'Name', card: 'title', cell: (t) => t.name },
                  {
                    label: 'Text',
                    cell: (t) => (
                      <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
                        {t.body}
                      </Text>
                    ),
                  },
                  {
                    label: 'Fields',
                    cell: (t) => (t.fields.length ? t.fields.map((f) => `{${f}}`).join(', ') : 'none'),
                  },
                  { label: 'Changed', cell: (t) => when(t.updated_at) },
                  {
                    label: 'Actions',
                    card: 'actions',
                    cell: (t) => (
                      <Group gap={4}>
                        <Button
                          size="compact-xs"
                          variant="default"
                          aria-label={`Change ${t.name}`}
                          onClick={() => setEditing(t.id)}
                        >
                          Change
                        </Button>
                        <Button
                          size="compact-xs"
                          variant="default"
                          aria-label={`Delete ${t.name}`}
                          onClick={() => void remove(t)}
                        >
                          Delete
                        </Button>
                      </Group>
                    ),
                  },
                ]}
              />
            </Stack>
          )
        }
      </Load>
    </Page>
  );
}
