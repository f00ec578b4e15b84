import { Badge, Button, Card, Group, Stack, Text } from '@mantine/core';
import type { CsvFields } from '../lib/csv';
import { count, plural } from '../lib/format';
import type { Personalised } from '../lib/personalise';

/** How many rendered texts the preview shows. */
const PREVIEWED = 3;

/**
 * The Send form's fields from a CSV: which `{field}`s the message may use, and once it uses them,
 * the first texts as recipients get them, a field no column has, and recipients with an empty field.
 */
export function TemplateFields({
  csv,
  personal,
  onLeaveOutEmpty,
}: {
  csv: CsvFields;
  personal: Personalised | null;
  onLeaveOutEmpty(): void;
}) {
  return (
    <Stack gap="xs" data-testid="template-fields">
      <Group
        gap={4}
        component="ul"
        style={{ listStyle: 'none', padding: 0, margin: 0 }}
        aria-label="Fields from the CSV"
      >
        <Text size="sm" component="li">
          Fields from the CSV, for the message:
        </Text>
        {csv.fields.map((field) => (
          <li key={field}>
            <Badge variant="light" color="gray" style={{ textTransform: 'none' }}>
              <span style={{ color: 'var(--pg-badge-text)' }}>{`{${field}}`}</span>
            </Badge>
          </li>
        ))}
      </Group>
      {personal && personal.unknown.length > 0 && (
        <Text size="sm" c="var(--pg-danger)" role="alert" data-testid="template-unknown">
          {personal.unknown.map((f) => `{${f}}`).join(', ')} {personal.unknown.length === 1 ? 'is' : 'are'} not a column
          of the CSV: use one of the fields above.
        </Text>
      )}
      {personal && personal.empty.length > 0 && (
        <Stack gap={4} role="alert" data-testid="template-empty">
          <Text size="sm" c="var(--pg-danger)">
            {plural(personal.empty.length, 'recipient has', 'recipients have')} an empty field:{' '}
            {personal.empty
              .slice(0, PREVIEWED)
              .map((row) => `${row.e164} (${row.missing.map((f) => `{${f}}`).join(', ')})`)
              .join(', ')}
            {personal.empty.length > PREVIEWED && ` and ${count(personal.empty.length - PREVIEWED)} more`}.
          </Text>
          <Group>
            <Button variant="default" size="xs" onClick={onLeaveOutEmpty}>
              Leave out {personal.empty.length === 1 ? 'that recipient' : `those ${count(personal.empty.length)}`}
            </Button>
          </Group>
        </Stack>
      )}
      {personal && personal.texts.length > 0 && (
        <Card withBorder padding="xs" component="section" aria-label="Preview" data-testid="template-preview">
          <Text size="sm" fw={600} component="h2" mb={4}>
            Preview:{' '}
            {personal.texts.length > PREVIEWED ? `the first ${PREVIEWED} of ${count(personal.texts.length)}` : 'each'}{' '}
            text
            {personal.texts.length === 1 ? '' : 's'}
          </Text>
          <Stack gap={4} component="ol" style={{ listStyle: 'none', padding: 0, margin: 0 }}>
            {personal.texts.slice(0, PREVIEWED).map(({ e164, text }) => (
              <li key={e164} data-testid="template-preview-text">
                <Text size="xs" c="dimmed" component="span">
                  {e164}:{' '}
                </Text>
                <Text size="sm" component="span" style={{ whiteSpace: 'pre-wrap' }}>
                  {text}
                </Text>
              </li>
            ))}
          </Stack>
        </Card>
      )}
    </Stack>
  );
}
