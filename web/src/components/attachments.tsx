import { Anchor, Card, Group, Image, Stack, Text } from '@mantine/core';
import type { Schemas } from '../api/client';

/** Raster images only a browser draws: the one kind previewed inline (the server serves others as downloads). */
const PREVIEWED = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/bmp']);

const REASONS: Record<string, string> = {
  over_quota: 'not stored: the account’s MMS storage was full',
  no_data: 'not stored: the phone sent no content',
  expired: 'no longer kept',
};

function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** A received MMS's attachments: each with a download link, a preview for a raster image. */
export function Attachments({ message }: { message: Schemas['Message'] }) {
  const attachments = message.attachments ?? [];
  if (attachments.length === 0) return null;
  return (
    <Card withBorder component="section" aria-label="Attachments">
      <Stack gap="sm">
        <Text fw={600}>Attachments</Text>
        {attachments.map((a) => {
          const href = `/v1/messages/${message.id}/attachments/${a.id}`;
          const name = a.name ?? `attachment ${a.part_id}`;
          const type = a.content_type.split(';')[0].trim().toLowerCase();
          return (
            <Stack key={a.id} gap={4} data-testid="attachment">
              <Group gap="xs" wrap="wrap">
                {a.stored ? (
                  <Anchor href={href} download={name} aria-label={`Download ${name}`}>
                    {name}
                  </Anchor>
                ) : (
                  <Text size="sm">{name}</Text>
                )}
                <Text size="xs" c="dimmed">
                  {a.content_type} · {size(a.size)}
                  {a.not_stored ? ` · ${REASONS[a.not_stored] ?? 'not stored'}` : ''}
                </Text>
              </Group>
              {a.stored && PREVIEWED.has(type) && (
                <Image src={href} alt={name} maw={320} radius="sm" data-testid="attachment-preview" />
              )}
            </Stack>
          );
        })}
      </Stack>
    </Card>
  );
}
