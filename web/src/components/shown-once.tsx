import { Alert, Button, Code, Group, Stack, Text } from '@mantine/core';
import { CopyValueButton } from './copy-value';

/** A secret the API returns only once: shown in full with a copy button and a warning. */
export function ShownOnce({ label, value, onDone }: { label: string; value: string; onDone?: () => void }) {
  return (
    <Alert color="yellow" title={`${label}: shown only once`} data-testid="shown-once">
      <Stack gap="xs">
        <Text size="sm">Copy it now; it cannot be shown again.</Text>
        <Code
          block
          aria-label={label}
          data-testid="secret-value"
          style={{ wordBreak: 'break-all', whiteSpace: 'pre-wrap' }}
        >
          {value}
        </Code>
        <Group>
          <CopyValueButton label={label} value={value} />
          {onDone && (
            <Button size="xs" variant="default" onClick={onDone}>
              Done
            </Button>
          )}
        </Group>
      </Stack>
    </Alert>
  );
}
