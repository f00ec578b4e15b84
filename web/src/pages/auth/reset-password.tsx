import { Alert, Anchor, Button, Group, Paper, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import { api, ApiFailure, ok } from '../../api/client';
import { FormError } from '../../components/states';
import { PASSWORD_HINT } from '../../lib/password';
import { Link, navigate } from '../../lib/router';
import { RESEND_COOLDOWN_SECONDS, useCooldown } from '../../lib/use-cooldown';
import { useSubmit } from '../../lib/use-submit';
import { AuthExtras } from './auth-extras';

/** Two steps: ask for a code by email, then enter it with the new password. */
export function ResetPassword() {
  const [step, setStep] = useState<'request' | 'reset' | 'done'>('request');
  const [email, setEmail] = useState('');
  const [code, setCode] = useState('');
  const [password, setPassword] = useState('');
  const [token, setToken] = useState<string | null>(null);
  const form = useSubmit();
  const [resent, setResent] = useState(false);
  // The API mails one code a minute per address and answers 202 either way (it never says whether
  // an account exists), so the wait is counted here: a request inside it would send nothing.
  const cooldown = useCooldown(0);
  const field = form.field;
  document.title = 'Reset password · Phone-Gateway';

  // 202 carries no JSON (the server's text "Accepted"): read it as text.
  const requestCode = () =>
    ok(api.POST('/v1/auth/password-reset/request', { body: { email, turnstile_token: token }, parseAs: 'text' }));

  const submit = form.submit(async () => {
    if (step === 'request') {
      await requestCode();
      cooldown.start(RESEND_COOLDOWN_SECONDS);
      setStep('reset');
    } else {
      await ok(api.POST('/v1/auth/password-reset', { body: { email, code, new_password: password } }));
      setStep('done');
    }
  });

  // A resend shares the form's error, not its busy state: the submit button stays as it is.
  const resend = () =>
    form.run(
      async () => {
        setResent(false);
        try {
          await requestCode();
          cooldown.start(RESEND_COOLDOWN_SECONDS);
          setResent(true);
        } catch (e) {
          if (e instanceof ApiFailure && e.retryAfterSeconds) cooldown.start(e.retryAfterSeconds);
          throw e;
        }
      },
      { busy: false },
    );

  return (
    <Paper withBorder p="lg" mt="xl" component="form" onSubmit={submit} noValidate>
      <Stack>
        <Title order={1} size="h2">
          Reset your password
        </Title>
        {step === 'done' ? (
          <>
            <Alert color="teal" role="status">
              Your password was changed. Sign in with the new one.
            </Alert>
            <Button onClick={() => navigate('/sign-in')}>Sign in</Button>
          </>
        ) : (
          <>
            <TextInput
              label="Email"
              type="email"
              autoComplete="email"
              required
              readOnly={step === 'reset'}
              value={email}
              error={field('email')}
              onChange={(e) => setEmail(e.currentTarget.value)}
            />
            {step === 'reset' && (
              <>
                <Text size="sm" role="status">
                  {resent
                    ? 'A new code is on its way; the one before it no longer works.'
                    : 'If an account uses this address, a code is on its way.'}{' '}
                  It expires in 10 minutes.
                </Text>
                <TextInput
                  label="Code from the email"
                  inputMode="numeric"
                  autoComplete="one-time-code"
                  required
                  value={code}
                  error={field('code')}
                  onChange={(e) => setCode(e.currentTarget.value.trim())}
                />
                <PasswordInput
                  label="New password"
                  description={PASSWORD_HINT}
                  autoComplete="new-password"
                  required
                  value={password}
                  error={field('new_password')}
                  // Mantine marks only its TextInput aria-invalid; a screen reader needs it here too.
                  aria-invalid={!!field('new_password')}
                  onChange={(e) => setPassword(e.currentTarget.value)}
                />
              </>
            )}
            <FormError error={form.error} fields={['email', 'code', 'new_password']} />
            <Group>
              <Button type="submit" loading={form.busy}>
                {step === 'request' ? 'Email me a code' : 'Set the new password'}
              </Button>
              {step === 'reset' && (
                <Button variant="default" onClick={() => void resend()} disabled={cooldown.wait > 0}>
                  {cooldown.wait > 0 ? `Resend code in ${cooldown.wait}s` : 'Resend code'}
                </Button>
              )}
            </Group>
            {step === 'request' && <AuthExtras onToken={setToken} google={false} />}
          </>
        )}
        <Text size="sm">
          <Anchor component={Link} href="/sign-in">
            Back to sign in
          </Anchor>
        </Text>
      </Stack>
    </Paper>
  );
}
