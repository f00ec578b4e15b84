import { Alert, Anchor, Button, Paper, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { api, ok } from '../../api/client';
import { FormError } from '../../components/states';
import { Link, navigate } from '../../lib/router';
import { AuthExtras } from './auth-extras';

/** Two steps: ask for a code by email, then enter it with the new password. */
export function ResetPassword() {
  const [step, setStep] = useState<'request' | 'reset' | 'done'>('request');
  const [email, setEmail] = useState('');
  const [code, setCode] = useState('');
  const [password, setPassword] = useState('');
  const [token, setToken] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  document.title = 'Reset password · Phone-Gateway';

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      if (step === 'request') {
        // 202 carries no JSON (the server's text "Accepted"): read it as text.
        await ok(
          api.POST('/v1/auth/password-reset/request', { body: { email, turnstile_token: token }, parseAs: 'text' }),
        );
        setStep('reset');
      } else {
        await ok(api.POST('/v1/auth/password-reset', { body: { email, code, new_password: password } }));
        setStep('done');
      }
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  }

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
              onChange={(e) => setEmail(e.currentTarget.value)}
            />
            {step === 'reset' && (
              <>
                <Text size="sm" role="status">
                  If an account uses this address, a code is on its way. It expires in 10 minutes.
                </Text>
                <TextInput
                  label="Code from the email"
                  inputMode="numeric"
                  autoComplete="one-time-code"
                  required
                  value={code}
                  onChange={(e) => setCode(e.currentTarget.value.trim())}
                />
                <PasswordInput
                  label="New password"
                  autoComplete="new-password"
                  required
                  value={password}
                  onChange={(e) => setPassword(e.currentTarget.value)}
                />
              </>
            )}
            <FormError error={error} />
            <Button type="submit" loading={busy}>
              {step === 'request' ? 'Email me a code' : 'Set the new password'}
            </Button>
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
