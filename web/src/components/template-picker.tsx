import { Anchor, Button, Group, Select, TextInput } from '@mantine/core';
import { useState } from 'react';
import { api, ApiFailure, ok } from '../api/client';
import { Link } from '../lib/router';
import { useLoad } from '../lib/use-load';
import { useSubmit } from '../lib/use-submit';
import { FormError } from './states';

/** The Send form's saved texts: pick one to write with, or save the message as one. */
export function TemplatePicker({ body, onPick }: { body: string; onPick(body: string): void }) {
  const state = useLoad(
    () => ok(api.GET('/v1/templates', { params: { query: { limit: 200 } } })).then((r) => r.data),
    [],
  );
  const [picked, setPicked] = useState<string | null>(null);
  const [naming, setNaming] = useState(false);
  const [name, setName] = useState('');
  const [saved, setSaved] = useState<string | null>(null);
  const saving = useSubmit();
  const { error } = saving;
  const templates = state.data ?? [];

  // The "Saved as" notice stays until the next save succeeds, also when one is refused.
  const save = () =>
    saving.run(async () => {
      const { template } = await ok(api.POST('/v1/templates', { body: { name, body } }));
      setSaved(`Saved as “${template.name}”.`);
      setNaming(false);
      setName('');
      setPicked(template.id);
      state.reload();
    });

  return (
    <Group align="flex-end" gap="sm" wrap="wrap">
      <Select
        label="Saved template"
        placeholder={templates.length === 0 ? 'None saved yet' : 'Pick one'}
        data={templates.map((t) => ({ value: t.id, label: t.name }))}
        value={picked}
        disabled={templates.length === 0}
        onChange={(id) => {
          setPicked(id);
          const template = templates.find((t) => t.id === id);
          if (template) onPick(template.body);
        }}
      />
      {naming ? (
        <>
          <TextInput
            label="Template name"
            value={name}
            onChange={(e) => setName(e.currentTarget.value)}
            error={saving.field('name')}
          />
          <Button variant="default" onClick={() => void save()} disabled={!name.trim()}>
            Save
          </Button>
        </>
      ) : (
        <Button variant="default" disabled={!body.trim()} onClick={() => setNaming(true)}>
          Save as a template
        </Button>
      )}
      <Anchor component={Link} href="/templates" size="sm">
        Manage templates
      </Anchor>
      {saved && (
        <span role="status" style={{ fontSize: 'var(--mantine-font-size-sm)' }}>
          {saved}
        </span>
      )}
      {!(error instanceof ApiFailure && error.field('name')) && <FormError error={error} />}
    </Group>
  );
}
