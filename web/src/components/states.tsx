import { Alert, Button, Center, Group, Loader, Stack, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { ApiFailure, messageOf } from '../api/client';
import type { Loaded } from '../lib/use-load';

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <Center py="xl" role="status" aria-live="polite">
      <Group gap="sm">
        <Loader size="sm" aria-hidden />
        <Text c="dimmed">{label}</Text>
      </Group>
    </Center>
  );
}

export function ErrorState({ error, retry }: { error: unknown; retry?: () => void }) {
  return (
    <Alert color="red" title="Something went wrong" role="alert">
      <Stack gap="xs" align="flex-start">
        <Text size="sm">{messageOf(error)}</Text>
        {retry && (
          <Button size="xs" variant="light" color="red" onClick={retry}>
            Try again
          </Button>
        )}
      </Stack>
    </Alert>
  );
}

export function Empty({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <Stack align="center" gap="xs" py="xl" data-testid="empty">
      <Text fw={600}>{title}</Text>
      {children && (
        <Text c="dimmed" size="sm" ta="center">
          {children}
        </Text>
      )}
    </Stack>
  );
}

const notFound = (error: unknown) =>
  error instanceof ApiFailure && (error.problem.status === 404 || error.response?.status === 404);

/**
 * Loading, error or the content: the three states every screen has. A 404 is no error to retry:
 * the thing is not there (or is another account's), and asking again changes nothing.
 */
export function Load<T>({
  state,
  children,
  missing = 'It does not exist, or it is not in this account.',
}: {
  state: Loaded<T>;
  children: (data: T) => ReactNode;
  /** What a 404 means on this screen. */
  missing?: ReactNode;
}) {
  if (state.data === undefined && state.loading) return <Loading />;
  if (state.data === undefined && notFound(state.error))
    return (
      <div role="status">
        <Empty title="Not found">{missing}</Empty>
      </div>
    );
  if (state.data === undefined) return <ErrorState error={state.error} retry={state.reload} />;
  return <>{children(state.data)}</>;
}

/**
 * A form's refusal in plain words. `fields` are those the form shows beside their inputs: their
 * errors are said there, once, and the banner keeps only what no input shows.
 */
export function FormError({ error, fields = [] }: { error: unknown; fields?: string[] }) {
  if (!error) return null;
  const message = error instanceof ApiFailure ? error.except(fields) : messageOf(error);
  if (!message) return null;
  return (
    <Alert color="red" role="alert" p="xs">
      {message}
    </Alert>
  );
}
