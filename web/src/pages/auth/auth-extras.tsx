import { Button, Divider } from '@mantine/core';
import { Turnstile } from '../../components/turnstile';
import { useAuthConfig } from '../../lib/auth-config';

/** Turnstile when configured, and "Sign in with Google" when enabled. */
export function AuthExtras({ onToken, google = true }: { onToken(token: string | null): void; google?: boolean }) {
  const config = useAuthConfig();
  if (!config.data) return null;
  return (
    <>
      {config.data.turnstile_site_key && <Turnstile siteKey={config.data.turnstile_site_key} onToken={onToken} />}
      {google && config.data.google_sign_in && (
        <>
          <Divider label="or" labelPosition="center" />
          <Button component="a" href="/v1/auth/google/start" variant="default">
            Sign in with Google
          </Button>
        </>
      )}
    </>
  );
}
