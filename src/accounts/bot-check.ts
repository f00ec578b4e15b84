import { ApiError, validationFailed } from '../http/errors';

/**
 * Cloudflare Turnstile, server side: active when TURNSTILE_SECRET is set. Tokens are checked at
 * TURNSTILE_VERIFY_URL (siteverify: form post of secret, response, remoteip → {success}).
 */
export function createBotCheck({ secret, verifyUrl }: { secret?: string; verifyUrl: string }) {
  return {
    enabled: Boolean(secret),
    async verify(token: string | undefined, ip: string): Promise<void> {
      if (!secret) return;
      if (!token) throw validationFailed([{ field: 'body.turnstile_token', message: 'turnstile_token is required' }]);
      let success = false;
      try {
        const res = await fetch(verifyUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ secret, response: token, remoteip: ip }),
          signal: AbortSignal.timeout(10_000),
        });
        success = res.ok && ((await res.json()) as { success?: boolean }).success === true;
      } catch {
        success = false;
      }
      if (!success) throw new ApiError(403, 'bot_check_failed', 'The bot check failed; try again.');
    },
  };
}

export type BotCheck = ReturnType<typeof createBotCheck>;
