import { api, ok } from '../api/client';
import { useLoad } from './use-load';

/** GET /v1/auth/config: whether Google sign-in is on and the Turnstile site key, if any. */
export function useAuthConfig() {
  return useLoad(() => ok(api.GET('/v1/auth/config')), []);
}
