import { Anchor } from '@mantine/core';
import { api, ok } from '../api/client';
import { Page } from '../components/page';
import { Empty, Load } from '../components/states';
import { defaultCountry } from '../lib/numbers';
import { Link } from '../lib/router';
import { useLoad } from '../lib/use-load';
import { SendForm } from './send/send-form';

export function Send() {
  // The account's usage is read afresh here: what is left today decides what this send may do.
  const state = useLoad(
    () => Promise.all([ok(api.GET('/v1/devices')).then((r) => r.data), ok(api.GET('/v1/auth/me')), defaultCountry()]),
    [],
  );
  return (
    <Page title="Send a text">
      <Load state={state}>
        {([list, me, country]) =>
          list.length === 0 ? (
            <Empty title="No phone to send with">
              <Anchor component={Link} href="/phones">
                Pair a phone
              </Anchor>{' '}
              first: texts go out through it.
            </Empty>
          ) : (
            <SendForm devices={list} me={me} country={country} />
          )
        }
      </Load>
    </Page>
  );
}
