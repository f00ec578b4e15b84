import { Group, Stack, Title } from '@mantine/core';
import { useEffect, type ReactNode } from 'react';

/** A screen: its title (also the document title, announced on navigation) and its content. */
export function Page({ title, actions, children }: { title: string; actions?: ReactNode; children: ReactNode }) {
  useEffect(() => {
    document.title = `${title} · Phone-Gateway`;
  }, [title]);
  return (
    <Stack gap="md">
      <Group justify="space-between" wrap="wrap">
        <Title order={1} size="h2">
          {title}
        </Title>
        {actions}
      </Group>
      {children}
    </Stack>
  );
}
