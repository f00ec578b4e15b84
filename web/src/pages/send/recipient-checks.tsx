import { Badge, Button, Group, Text } from '@mantine/core';
import { count, plural } from '../../lib/format';
import { notANumber } from '../../lib/numbers';
import type { RecipientCheck } from '../../lib/recipients';

/** Each entry of the Recipients box as checked (valid, invalid, repeated), and the invalid ones' removal. */
export function RecipientChecks({
  checks,
  valid,
  invalid,
  duplicates,
  country,
  onRemoveInvalid,
}: {
  checks: RecipientCheck[];
  valid: RecipientCheck[];
  invalid: RecipientCheck[];
  duplicates: RecipientCheck[];
  country: string | null;
  onRemoveInvalid(): void;
}) {
  return (
    <div aria-live="polite">
      <Text size="sm" data-testid="recipient-summary">
        {valid.length} valid recipient{valid.length === 1 ? '' : 's'}
        {invalid.length > 0 && `, ${invalid.length} invalid`}
        {duplicates.length > 0 && `, ${duplicates.length} duplicate${duplicates.length === 1 ? '' : 's'} (sent once)`}
      </Text>
      <Group gap={4} mt={4} component="ul" style={{ listStyle: 'none', padding: 0 }} aria-label="Recipients as checked">
        {checks.map((c, i) => (
          <li key={i}>
            <Badge
              variant="light"
              color={c.invalid ? 'red' : c.duplicateOf !== undefined ? 'orange' : 'teal'}
              title={c.invalid ? 'not a phone number' : c.duplicateOf !== undefined ? 'duplicate' : c.e164}
            >
              <span style={{ color: 'var(--pg-badge-text)', textTransform: 'none' }}>
                {c.raw}
                {c.invalid ? ': invalid' : c.duplicateOf !== undefined ? ': duplicate' : ''}
              </span>
            </Badge>
          </li>
        ))}
      </Group>
      {invalid.length > 0 && (
        <Text size="xs" c="var(--pg-danger)" role="alert" data-testid="recipient-error">
          {notANumber(invalid[0].raw, country)}
          {invalid.length > 1 &&
            ` ${plural(invalid.length - 1, 'other entry is', 'other entries are')} not a number either (marked invalid).`}
        </Text>
      )}
      {invalid.length > 0 && (
        <Button variant="default" size="xs" mt={4} onClick={onRemoveInvalid}>
          {invalid.length === 1 ? 'Remove the invalid entry' : `Remove the ${count(invalid.length)} invalid entries`}
        </Button>
      )}
    </div>
  );
}
