import { Button, Group } from '@mantine/core';
import type { PagedList } from '../lib/use-paged-list';

/** A paged list's "Load more", while there is a next page. */
export function LoadMore<T>({ list }: { list: PagedList<T> }) {
  const next = list.data?.next;
  if (!next) return null;
  return (
    <Group>
      <Button variant="default" onClick={() => void list.loadMore(next)}>
        Load more
      </Button>
    </Group>
  );
}
