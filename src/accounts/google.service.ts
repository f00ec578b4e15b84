import type { EntityManager } from '@mikro-orm/postgresql';
import type { Configuration, IDToken } from 'openid-client' with { 'resolution-mode': 'import' };
import type { Clock } from '../lib/clock';
import { safeEqual, sha256 } from '../lib/crypto';
import { normalizeEmail } from '../lib/fields';
import { accountsRepository } from './accounts.repository';
import type { OAuthState } from './oauth-state.entity';
import { oauthStatesRepository } from './oauth-states.repository';
import type { SessionOrigin, SessionsService } from './sessions.service';
import type { User } from './user.entity';

type OpenIdClient = typeof import('openid-client', { with: { 'resolution-mode': 'import' } });

export const GOOGLE_STATE_TTL_MS = 10 * 60_000;
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

export interface GoogleDeps {
  em: () => EntityManager;
  clock: Clock;
  sessions: SessionsService;
  clientId?: string;
  clientSecret?: string;
  issuer: string;
  /** `${PUBLIC_URL}/v1/auth/google/callback`, registered with the provider. */
  redirectUri: string;
  defaultPlan: string;
}

/** Why a sign-in was refused; the caller only ever sees a generic failure. */
export class GoogleSignInError extends Error {
  override name = 'GoogleSignInError';
}

// The package is ESM-only; a native dynamic import loads it from this CommonJS build.
const loadClient = (): Promise<OpenIdClient> => import('openid-client');

/** Plain http only for a provider on this machine (tests); anything else must be https. */
export const allowsInsecureIssuer = (issuer: URL) => issuer.protocol === 'http:' && LOOPBACK_HOSTS.has(issuer.hostname);

export function createGoogleService(deps: GoogleDeps) {
  const { em, clock, sessions, clientId, clientSecret } = deps;
  const enabled = Boolean(clientId && clientSecret);
  let discovered: Promise<Configuration> | undefined;

  /** The provider's discovery document, fetched once per process (again only after a failure). */
  function configuration(client: OpenIdClient): Promise<Configuration> {
    if (!discovered) {
      const issuer = new URL(deps.issuer);
      discovered = client.discovery(
        issuer,
        clientId!,
        clientSecret,
        undefined,
        allowsInsecureIssuer(issuer) ? { execute: [client.allowInsecureRequests] } : undefined,
      );
      discovered.catch(() => (discovered = undefined));
    }
    return discovered;
  }

  /** Single use: of two callbacks racing with one state, only one deletes the row. */
  async function consumeState(state: string): Promise<OAuthState> {
    const stateHash = sha256(state);
    const saved = await oauthStatesRepository.byHash(em(), stateHash);
    const deleted = saved ? await oauthStatesRepository.delete(em(), stateHash) : 0;
    if (!saved || deleted !== 1) throw new GoogleSignInError('unknown or already used state');
    if (saved.expiresAt <= clock.now()) throw new GoogleSignInError('expired state');
    return saved;
  }

  async function userFor(claims: IDToken): Promise<User> {
    const now = clock.now();
    const known = await accountsRepository.userByGoogleSub(em(), claims.sub);
    if (known) return known;

    const email = typeof claims.email === 'string' ? normalizeEmail(claims.email) : '';
    if (!email) throw new GoogleSignInError('no email in the ID token');
    const verified = claims.email_verified === true;
    const name = typeof claims.name === 'string' ? claims.name : null;
    const picture = typeof claims.picture === 'string' ? claims.picture : null;

    const existing = await accountsRepository.userByEmail(em(), email);
    if (existing) {
      // Linking on an address Google has not verified would hand the account to whoever typed it.
      if (!verified) throw new GoogleSignInError('unverified email matches an existing account');
      if (existing.googleSub) throw new GoogleSignInError('account linked to another Google account');
      existing.googleSub = claims.sub;
      existing.emailVerifiedAt ??= now;
      existing.avatarUrl ??= picture;
      existing.name ??= name;
      return existing;
    }
    return accountsRepository.addUser(em(), {
      email,
      name,
      avatarUrl: picture,
      passwordHash: null,
      googleSub: claims.sub,
      planId: deps.defaultPlan,
      emailVerifiedAt: verified ? now : null,
      onboarding: {},
      createdAt: now,
      updatedAt: now,
    });
  }

  return {
    enabled,

    /** The provider's authorization URL, and the state to bind to the browser. */
    async start(): Promise<{ url: string; state: string }> {
      const client = await loadClient();
      const config = await configuration(client);
      const state = client.randomState();
      const nonce = client.randomNonce();
      const codeVerifier = client.randomPKCECodeVerifier();
      const now = clock.now();
      // Abandoned sign-ins are swept here rather than by a job.
      await oauthStatesRepository.replaceExpired(
        em(),
        {
          stateHash: sha256(state),
          nonce,
          codeVerifier,
          createdAt: now,
          expiresAt: new Date(now.getTime() + GOOGLE_STATE_TTL_MS),
        },
        now,
      );
      const url = client.buildAuthorizationUrl(config, {
        redirect_uri: deps.redirectUri,
        scope: 'openid email profile',
        state,
        nonce,
        code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
        code_challenge_method: 'S256',
      });
      return { url: url.href, state };
    },

    /**
     * Completes a sign-in from the callback's query string: checks the state against the one bound
     * to the browser, redeems the code (PKCE, nonce, ID token signature), then finds, links or
     * creates the account and opens a session.
     */
    async finish(input: { query: string; browserState?: string }, origin: SessionOrigin) {
      const state = new URLSearchParams(input.query).get('state');
      if (!state || !input.browserState || !safeEqual(state, input.browserState))
        throw new GoogleSignInError('state does not match the browser');
      const saved = await consumeState(state);
      const client = await loadClient();
      const config = await configuration(client);
      const callbackUrl = new URL(deps.redirectUri);
      callbackUrl.search = input.query;
      const tokens = await client.authorizationCodeGrant(config, callbackUrl, {
        pkceCodeVerifier: saved.codeVerifier,
        expectedState: state,
        expectedNonce: saved.nonce,
        idTokenExpected: true,
      });
      const claims = tokens.claims();
      if (!claims) throw new GoogleSignInError('no ID token');
      const user = await userFor(claims);
      // Also writes a new account or a link userFor made.
      await accountsRepository.updateUser(em(), user, { lastLoginAt: clock.now() });
      const { token } = await sessions.create(user.id, origin);
      return { user, token };
    },
  };
}

export type GoogleService = ReturnType<typeof createGoogleService>;
