import { Alert, Anchor, Button, Paper, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import { api, ok } from '../../api/client';
import { FormError } from '../../components/states';
import { Link, useLocation } from '../../lib/router';
import { useSubmit } from '../../lib/use-submit';
import { AuthExtras } from './auth-extras';

export function SignIn() {
  const { search } = useLocation();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [token, setToken] = useState<string | null>(null);
  const form = useSubmit();
  document.title = 'Sign in · Phone-Gateway';

  const submit = form.submit(async () => {
    await ok(api.POST('/v1/auth/login', { body: { email, password, turnstile_token: token } }));
    window.dispatchEvent(new CustomEvent('signed-in', { detail: search.get('next') ?? '/' }));
  });

  return (
    <Paper withBorder p="lg" mt="xl" component="form" onSubmit={submit} noValidate>
      <Stack>
        <Title order={1} size="h2">
          Sign in
        </Title>
        {search.get('ended') && (
          <Alert color="yellow" role="status" p="xs">
            Your session ended: you were signed out here or elsewhere, or it expired. Sign in to go back to where you
            were.
          </Alert>
        )}
        {search.get('error') && <FormError error={new Error('Signing in with Google failed. Try again.')} />}
        <TextInput
          label="Email"
          type="email"
          autoComplete="email"
          required
          value={email}
          onChange={(e) => setEmail(e.currentTarget.value)}
        />
        <PasswordInput
          label="Password"
          autoComplete="current-password"
          required
          value={password}
          onChange={(e) => setPassword(e.currentTarget.value)}
        />
        <FormError error={form.error} />
        <Button type="submit" loading={form.busy}>
          Sign in
        </Button>
        <AuthExtras onToken={setToken} />
        <Text size="sm">
          No account?{' '}
          <Anchor component={Link} href="/sign-up">
            Sign up
          </Anchor>{' '}
          ·{' '}
          <Anchor component={Link} href="/reset-password">
            Forgot your password?
          </Anchor>
        </Text>
      </Stack>
    </Paper>
  );
}
