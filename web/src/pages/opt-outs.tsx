import { Anchor, Button, Card, Group, Text, TextInput } from '@mantine/core';
import { useState } from 'react';
import { api, ApiFailure, ok, type Schemas } from '../api/client';
import { useConfirm } from '../components/confirm';
import { Page } from '../components/page';
import { Empty, FormError, Load } from '../components/states';
import { DataTable } from '../components/data-table';
import { when } from '../lib/format';
import { defaultCountry, notANumber, toE164 } from '../lib/numbers';
import { Link } from '../lib/router';
import { useLoad } from '../lib/use-load';
import { useSubmit } from '../lib/use-submit';

/** Why a number is on the list, in words. */
function why(optOut: Schemas['OptOut']) {
  if (optOut.source === 'api') return 'Added by hand or through the API';
  return optOut.message_id ? (
    <>
      They texted STOP (
      <Anchor component={Link} href={`/messages/${optOut.message_id}`}>
        the text
      </Anchor>
      )
    </>
  ) : (
    'They texted STOP'
  );
}

/** The suppression list: numbers no send reaches, why each is there, and adding or removing one. */
export function OptOuts() {
  const confirm = useConfirm();
  const state = useLoad(
    () => ok(api.GET('/v1/opt-outs', { params: { query: { limit: 200 } } })).then((r) => r.data),
    [],
  );
  const country = useLoad(() => defaultCountry(), []).data ?? null;
  const [number, setNumber] = useState('');
  // Adding and taking off share one error; the notice says which number was added.
  const form = useSubmit<string>({ onDone: state.reload });
  const { error } = form;

  const numberError =
    error instanceof ApiFailure ? error.field('phone_number') : error instanceof Error ? error.message : undefined;

  const add = form.submit(async () => {
    // Read as the Send form reads recipients: a local number in the account's country is one.
    const e164 = toE164(number, country);
    if (!e164) throw new Error(notANumber(number.trim(), country));
    const { opt_out } = await ok(api.POST('/v1/opt-outs', { body: { phone_number: e164 } }));
    setNumber('');
    return opt_out.phone_number;
  });

  async function remove(phone: string) {
    const yes = await confirm({
      title: `Take ${phone} off the list?`,
      message: 'Sends reach this number again.',
      confirmLabel: 'Take off',
    });
    if (yes)
      await form.run(() =>
        ok(api.DELETE('/v1/opt-outs/{phone_number}', { params: { path: { phone_number: phone } } })),
      );
  }

  return (
    <Page title="Opt-outs">
      <Text size="sm">
        No send reaches a number on this list: its message is created failed (opted out) and not counted against the
        plan. A text of STOP to one of your phones adds its sender; START takes it off.
      </Text>
      <Card withBorder component="form" onSubmit={add} noValidate aria-label="Add a number">
        <Group align="flex-end" wrap="wrap">
          <TextInput
            label="Number to add"
            placeholder="+14155550123"
            description={country ? `Without + and a country code, a number is read as a ${country} number.` : undefined}
            value={number}
            error={numberError && <span role="alert">{numberError}</span>}
            onChange={(e) => setNumber(e.currentTarget.value)}
          />
          <Button type="submit">Add to the list</Button>
        </Group>
        {form.done && (
          <Text size="sm" c="var(--pg-ok)" role="status" mt="xs">
            {form.done} is on the list.
          </Text>
        )}
      </Card>
      {/* Once: beside the field when it is about the number, else here. */}
      {!numberError && <FormError error={error} />}
      <Load state={state}>
        {(rows) =>
          rows.length === 0 ? (
            <Empty title="No opted-out numbers">Numbers that text STOP appear here.</Empty>
          ) : (
            <DataTable
              label="Opt-outs"
              rows={rows}
              rowKey={(o) => o.phone_number}
              rowTestId="opt-out-row"
              minWidth={520}
              columns={[
                { label: 'Number', card: 'title', cell: (o) => o.phone_number },
                { label: 'Why', cell: why },
                { label: 'Since', cell: (o) => when(o.created_at) },
                {
                  label: 'Actions',
                  card: 'actions',
                  cell: (o) => (
                    <Button
                      size="compact-xs"
                      variant="default"
                      aria-label={`Take off ${o.phone_number}`}
                      onClick={() => void remove(o.phone_number)}
                    >
                      Take off
                    </Button>
                  ),
                },
              ]}
            />
          )
        }
      </Load>
    </Page>
  );
}
