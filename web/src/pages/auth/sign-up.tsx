import { Anchor, Button, Paper, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import { api, ok } from '../../api/client';
import { FormError } from '../../components/states';
import { PASSWORD_HINT } from '../../lib/password';
import { Link } from '../../lib/router';
import { useSubmit } from '../../lib/use-submit';
import { AuthExtras } from './auth-extras';

export function SignUp() {
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [token, setToken] = useState<string | null>(null);
  const form = useSubmit();
  document.title = 'Sign up · Phone-Gateway';
  const field = form.field;

  const submit = form.submit(async () => {
    await ok(api.POST('/v1/auth/register', { body: { email, password, name: name || null, turnstile_token: token } }));
    // Registering signs in; the mailed code is entered next.
    window.dispatchEvent(new CustomEvent('signed-in', { detail: '/verify-email' }));
  });

  return (
    <Paper withBorder p="lg" mt="xl" component="form" onSubmit={submit} noValidate>
      <Stack>
        <Title order={1} size="h2">
          Create your account
        </Title>
        <TextInput
          label="Name"
          autoComplete="name"
          value={name}
          error={field('name')}
          onChange={(e) => setName(e.currentTarget.value)}
        />
        <TextInput
          label="Email"
          type="email"
          autoComplete="email"
          required
          value={email}
          error={field('email')}
          onChange={(e) => setEmail(e.currentTarget.value)}
        />
        <PasswordInput
          label="Password"
          description={PASSWORD_HINT}
          autoComplete="new-password"
          required
          value={password}
          error={field('password')}
          // Mantine marks only its TextInput aria-invalid; a screen reader needs it here too.
          aria-invalid={!!field('password')}
          onChange={(e) => setPassword(e.currentTarget.value)}
        />
        <FormError error={form.error} fields={['name', 'email', 'password']} />
        <Button type="submit" loading={form.busy}>
          Sign up
        </Button>
        <AuthExtras onToken={setToken} />
        <Text size="sm">
          Have an account?{' '}
          <Anchor component={Link} href="/sign-in">
            Sign in
          </Anchor>
        </Text>
      </Stack>
    </Paper>
  );
}
