import { Anchor, Text } from '@mantine/core';
import { Page } from '../components/page';
import { Link } from '../lib/router';

export function NotFound() {
  return (
    <Page title="Page not found">
      <Text>
        There is nothing here.{' '}
        <Anchor component={Link} href="/">
          Back to the overview
        </Anchor>
      </Text>
    </Page>
  );
}
