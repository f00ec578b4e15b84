import { Alert, Button, Card, Group, PasswordInput, Stack, Switch, Text, TextInput } from '@mantine/core';
import { DataTable } from '../components/data-table';
import { useState } from 'react';
import { api, ok } from '../api/client';
import { useConfirm } from '../components/confirm';
import { Page } from '../components/page';
import { UsageReport } from '../components/usage-report';
import { FormError, Load } from '../components/states';
import { ago, count, when } from '../lib/format';
import { browserName, plainIp } from '../lib/user-agent';
import { PASSWORD_HINT } from '../lib/password';
import { useSession } from '../lib/session';
import { useLoad } from '../lib/use-load';
import { useSubmit } from '../lib/use-submit';

export function Account() {
  return (
    <Page title="Account">
      <Profile />
      <Plans />
      <UsageReport />
      <Failover />
      <Password />
      <Sessions />
    </Page>
  );
}

function Profile() {
  const { me, refresh } = useSession();
  const [name, setName] = useState(me.user.name ?? '');
  const form = useSubmit<boolean>();
  const submit = form.submit(async () => {
    await ok(api.PATCH('/v1/auth/profile', { body: { name: name || null } }));
    await refresh();
    return true;
  });
  return (
    <Card withBorder component="form" onSubmit={submit} noValidate aria-label="Profile">
      <Stack maw={440}>
        <Text fw={600} component="h2">
          Profile
        </Text>
        <Text size="sm">
          {me.user.email} · {me.user.email_verified_at ? `verified ${when(me.user.email_verified_at)}` : 'not verified'}
          {me.user.google_linked ? ' · Google linked' : ''} · plan {me.limits.plan_name}
        </Text>
        <TextInput
          label="Name"
          value={name}
          error={form.field('name')}
          onChange={(e) => setName(e.currentTarget.value)}
        />
        <FormError error={form.error} />
        {form.done && (
          <Text size="sm" c="var(--pg-ok)" role="status">
            Saved.
          </Text>
        )}
        <Group>
          <Button type="submit">Save profile</Button>
        </Group>
      </Stack>
    </Card>
  );
}

/** Every plan with its limits, the account's own marked. */
function Plans() {
  const { me } = useSession();
  const state = useLoad(() => ok(api.GET('/v1/plans')).then((r) => r.data), []);
  const price = (cents: number) => (cents === 0 ? 'free' : `$${(cents / 100).toLocaleString()} a month`);
  return (
    <Card withBorder component="section" aria-label="Plan">
      <Stack>
        <Text fw={600} component="h2">
          Plan: {me.limits.plan_name}
        </Text>
        <Load state={state}>
          {(plans) => (
            <DataTable
              label="Plans"
              rows={plans}
              rowKey={(p) => p.id}
              rowTestId="plan-row"
              minWidth={560}
              current={(p) => p.name === me.limits.plan_name}
              columns={[
                {
                  label: 'Plan',
                  card: 'title',
                  cell: (p) => `${p.name}${p.name === me.limits.plan_name ? ' (yours)' : ''}`,
                },
                { label: 'Texts a day', cell: (p) => count(p.daily_limit) },
                { label: 'Texts a month', cell: (p) => count(p.monthly_limit) },
                { label: 'Recipients a send', cell: (p) => count(p.batch_limit) },
                { label: 'Phones', cell: (p) => count(p.device_limit) },
                { label: 'Webhooks', cell: (p) => count(p.webhook_limit) },
                { label: 'Price', cell: (p) => price(p.monthly_price_cents) },
              ]}
            />
          )}
        </Load>
      </Stack>
    </Card>
  );
}

/** The account-wide failover switch (GET/PATCH /v1/account/settings). */
function Failover() {
  const state = useLoad(() => ok(api.GET('/v1/account/settings')).then((r) => r.settings), []);
  const saving = useSubmit({ onDone: state.reload });
  const set = (failover: boolean) => saving.run(() => ok(api.PATCH('/v1/account/settings', { body: { failover } })));
  return (
    <Card withBorder component="section" aria-label="Failover">
      <Stack maw={560}>
        <Text fw={600} component="h2">
          Failover
        </Text>
        <Load state={state}>
          {(settings) => (
            <Switch
              label="Move texts to another phone when one goes offline"
              description="Texts an offline phone has not taken yet go to another online phone of this account (the default first)."
              checked={settings.failover}
              disabled={saving.busy}
              onChange={(e) => void set(e.currentTarget.checked)}
            />
          )}
        </Load>
        <FormError error={saving.error} />
      </Stack>
    </Card>
  );
}

function Password() {
  const { me } = useSession();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const form = useSubmit<boolean>();
  const field = form.field;
  const submit = form.submit(async () => {
    await ok(api.POST('/v1/auth/password', { body: { current_password: current, new_password: next } }));
    setCurrent('');
    setNext('');
    return true;
  });
  if (!me.user.has_password) {
    return (
      <Card withBorder>
        <Text size="sm">
          You sign in with Google. Use “Forgot your password?” on the sign-in page to add a password.
        </Text>
      </Card>
    );
  }
  return (
    <Card withBorder component="form" onSubmit={submit} noValidate aria-label="Password">
      <Stack maw={440}>
        <Text fw={600} component="h2">
          Change password
        </Text>
        <PasswordInput
          label="Current password"
          autoComplete="current-password"
          required
          value={current}
          error={field('current_password')}
          // Mantine marks only its TextInput aria-invalid; a screen reader needs it here too.
          aria-invalid={!!field('current_password')}
          onChange={(e) => setCurrent(e.currentTarget.value)}
        />
        <PasswordInput
          label="New password"
          description={PASSWORD_HINT}
          autoComplete="new-password"
          required
          value={next}
          error={field('new_password')}
          // Mantine marks only its TextInput aria-invalid; a screen reader needs it here too.
          aria-invalid={!!field('new_password')}
          onChange={(e) => setNext(e.currentTarget.value)}
        />
        <FormError error={form.error} />
        {form.done && (
          <Alert color="teal" role="status" p="xs">
            Password changed.
          </Alert>
        )}
        <Group>
          <Button type="submit">Change password</Button>
        </Group>
      </Stack>
    </Card>
  );
}

function Sessions() {
  const confirm = useConfirm();
  const state = useLoad(() => ok(api.GET('/v1/auth/sessions')).then((r) => r.data), []);
  const actions = useSubmit({ onDone: state.reload });
  return (
    <Card withBorder component="section" aria-label="Sessions">
      <Stack>
        <Group justify="space-between">
          <Text fw={600} component="h2">
            Sessions
          </Text>
          <Button
            variant="default"
            size="xs"
            onClick={() =>
              void (async () => {
                const yes = await confirm({
                  title: 'Sign out everywhere else?',
                  message: 'Every other browser signed in to this account is signed out.',
                  confirmLabel: 'Sign out others',
                });
                if (yes) await actions.run(() => ok(api.POST('/v1/auth/sessions/revoke-others')));
              })()
            }
          >
            Sign out others
          </Button>
        </Group>
        <FormError error={actions.error} />
        <Load state={state}>
          {(sessions) => (
            <DataTable
              label="Sessions"
              rows={sessions}
              rowKey={(s) => s.id}
              rowTestId="session-row"
              minWidth={480}
              columns={[
                {
                  label: 'Browser',
                  card: 'title',
                  maw: 260,
                  cell: (s) => (
                    <Text size="sm" title={s.user_agent ?? ''} data-testid="session-browser">
                      {s.current ? 'This browser · ' : ''}
                      {browserName(s.user_agent)}
                    </Text>
                  ),
                },
                { label: 'IP', cell: (s) => <span data-testid="session-ip">{plainIp(s.ip)}</span> },
                { label: 'Last seen', cell: (s) => <span title={when(s.last_seen_at)}>{ago(s.last_seen_at)}</span> },
                {
                  label: 'Actions',
                  card: 'actions',
                  cell: (s) =>
                    !s.current && (
                      <Button
                        size="compact-xs"
                        variant="default"
                        onClick={() =>
                          void (async () => {
                            const yes = await confirm({
                              title: 'Sign out this session?',
                              message: 'That browser is signed out.',
                              confirmLabel: 'Sign out',
                            });
                            if (yes)
                              await actions.run(() =>
                                ok(api.DELETE('/v1/auth/sessions/{id}', { params: { path: { id: s.id } } })),
                              );
                          })()
                        }
                      >
                        Sign out
                      </Button>
                    ),
                },
              ]}
            />
          )}
        </Load>
      </Stack>
    </Card>
  );
}
