import { Alert, Button, Group, Paper, Stack, Text, TextInput } from '@mantine/core';
import { useState } from 'react';
import { api, ApiFailure, ok } from '../../api/client';
import { Page } from '../../components/page';
import { FormError } from '../../components/states';
import { navigate } from '../../lib/router';
import { RESEND_COOLDOWN_SECONDS, useCooldown } from '../../lib/use-cooldown';
import { useSession } from '../../lib/session';
import { useSubmit } from '../../lib/use-submit';

export function VerifyEmail() {
  const { me, refresh } = useSession();
  const [code, setCode] = useState('');
  const form = useSubmit();
  // Resend is throttled by the API (429 with Retry-After); the button shows the wait.
  const cooldown = useCooldown(RESEND_COOLDOWN_SECONDS);
  const wait = cooldown.wait;
  const [resent, setResent] = useState(false);

  const submit = form.submit(async () => {
    await ok(api.POST('/v1/auth/verify-email', { body: { code } }));
    await refresh();
    navigate('/', { replace: true });
  });

  // A resend shares the form's error, not its busy state: the Verify button stays as it is.
  const resend = () =>
    form.run(
      async () => {
        setResent(false);
        try {
          // 202 carries no JSON (the server's text "Accepted"): read it as text.
          await ok(api.POST('/v1/auth/verify-email/send', { parseAs: 'text' }));
          setResent(true);
          cooldown.start(RESEND_COOLDOWN_SECONDS);
        } catch (e) {
          if (e instanceof ApiFailure && e.retryAfterSeconds) cooldown.start(e.retryAfterSeconds);
          throw e;
        }
      },
      { busy: false },
    );

  if (me.user.email_verified_at) {
    return (
      <Page title="Verify your email">
        <Alert color="teal">{me.user.email} is verified.</Alert>
      </Page>
    );
  }
  return (
    <Page title="Verify your email">
      <Paper withBorder p="lg" maw={440} component="form" onSubmit={submit} noValidate>
        <Stack>
          <Text size="sm">
            We sent a six-digit code to <strong>{me.user.email}</strong>. It expires in 10 minutes.
          </Text>
          <TextInput
            label="Verification code"
            inputMode="numeric"
            autoComplete="one-time-code"
            required
            value={code}
            onChange={(e) => setCode(e.currentTarget.value.trim())}
          />
          <FormError error={form.error} />
          {resent && (
            <Text size="sm" role="status" c="var(--pg-ok)">
              A new code is on its way.
            </Text>
          )}
          <Group>
            <Button type="submit" loading={form.busy}>
              Verify
            </Button>
            <Button variant="default" onClick={() => void resend()} disabled={wait > 0}>
              {wait > 0 ? `Resend code in ${wait}s` : 'Resend code'}
            </Button>
          </Group>
        </Stack>
      </Paper>
    </Page>
  );
}
