import { Button, Code, CopyButton, Group, VisuallyHidden } from '@mantine/core';
import { Fragment } from 'react';

/** A copy button that shows "Copy" and is named after what it copies ("Copy API URL") for screen readers. */
export function CopyValueButton({ label, value }: { label: string; value: string }) {
  return (
    <CopyButton value={value}>
      {({ copied, copy }) => (
        <Button size="xs" onClick={copy} color={copied ? 'teal.9' : undefined}>
          {copied ? 'Copied' : 'Copy'}
          <VisuallyHidden> {label}</VisuallyHidden>
        </Button>
      )}
    </CopyButton>
  );
}

/**
 * A value to type or paste elsewhere. A long URL wraps after a slash (an encoded one too), a `?` or
 * an `&` where it can, anywhere if it must, so it never widens a small screen; the break
 * opportunities add no characters to what is copied.
 */
export function CopyValue({ label, value, testId }: { label: string; value: string; testId?: string }) {
  const parts = value.split(/(?<=\/|%2F|[?&])/i);
  return (
    <Group gap="xs" wrap="nowrap" align="center" maw="42rem">
      <Code fz="md" fw={600} data-testid={testId} style={{ overflowWrap: 'anywhere', flex: 1, minWidth: 0 }}>
        {parts.map((part, i) => (
          <Fragment key={i}>
            {part}
            {i < parts.length - 1 && <wbr />}
          </Fragment>
        ))}
      </Code>
      <CopyValueButton label={label} value={value} />
    </Group>
  );
}

/**
 * An id to paste into an API call or a support request, with its copy button named after what it is
 * the id of ("Copy ID of the message"). The id wraps anywhere rather than widen a phone's screen.
 */
export function CopyId({ id, of, testId }: { id: string; of: string; testId?: string }) {
  return (
    <Group gap={6} wrap="nowrap" align="center">
      <Code fz="xs" data-testid={testId} style={{ overflowWrap: 'anywhere', minWidth: 0 }}>
        {id}
      </Code>
      <CopyValueButton label={`ID of ${of}`} value={id} />
    </Group>
  );
}
