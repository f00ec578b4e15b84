import { generateKeyPairSync } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// Google for the tests: a real OpenID provider (oidc-provider) on a loopback port, and a minimal
// browser that follows every redirect by hand and keeps cookies per origin.

export const CLIENT_ID = 'phone-gateway-test';
export const CLIENT_SECRET = 'a-client-secret-long-enough-for-hs256-0123456789';

export interface GoogleAccount {
  email: string;
  email_verified: boolean;
  name?: string;
  picture?: string;
}

// Only what the test uses of oidc-provider, which ships no types.
interface Interaction {
  prompt: { name: string };
  params: Record<string, string>;
  session?: { accountId: string };
}
interface OidcProvider {
  callback(): (req: IncomingMessage, res: ServerResponse) => void;
  interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<Interaction>;
  interactionFinished(
    req: IncomingMessage,
    res: ServerResponse,
    result: Record<string, unknown>,
    options?: { mergeWithLastSubmission?: boolean },
  ): Promise<void>;
  Grant: new (init: { accountId: string; clientId: string }) => {
    addOIDCScope(scope: string): void;
    save(): Promise<string>;
  };
}
type ProviderClass = new (issuer: string, configuration: Record<string, unknown>) => OidcProvider;

/** The test's Google: accounts by `sub`, and who signs in at the next login prompt. */
export async function startProvider(callbackUrl: string) {
  const accounts = new Map<string, GoogleAccount>();
  const state = { nextLogin: '', deny: false };
  let handler: (req: IncomingMessage, res: ServerResponse) => void = () => undefined;
  const server: Server = createServer((req, res) => handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  // ESM-only and untyped: a native dynamic import through a variable keeps tsc from resolving it.
  const specifier = 'oidc-provider';
  const { default: Provider } = (await import(specifier)) as { default: ProviderClass };
  const signingKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
        redirect_uris: [callbackUrl],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    pkce: { required: () => true },
    findAccount: (_ctx: unknown, sub: string) => {
      const account = accounts.get(sub);
      return account && { accountId: sub, claims: () => ({ sub, ...account }) };
    },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'picture'] },
    // Like Google: the requested claims are in the ID token itself.
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    cookies: { keys: ['provider-cookie-key'] },
    ttl: { AccessToken: 600, AuthorizationCode: 60, Grant: 3600, IdToken: 600, Interaction: 600, Session: 3600 },
    jwks: { keys: [{ ...signingKey, alg: 'RS256', use: 'sig', kid: 'test' }] },
  });

  // Login and consent without pages: the user is `nextLogin` and agrees to everything asked
  // (unless `deny`).
  async function interact(req: IncomingMessage, res: ServerResponse) {
    const details = await provider.interactionDetails(req, res);
    if (state.deny) {
      await provider.interactionFinished(req, res, { error: 'access_denied', error_description: 'The user said no.' });
      return;
    }
    if (details.prompt.name === 'login') {
      await provider.interactionFinished(req, res, { login: { accountId: state.nextLogin } });
      return;
    }
    const grant = new provider.Grant({ accountId: details.session!.accountId, clientId: details.params.client_id });
    grant.addOIDCScope(details.params.scope);
    await provider.interactionFinished(req, res, { consent: { grantId: await grant.save() } });
  }
  const providerCallback = provider.callback();
  handler = (req, res) => {
    if (!req.url?.startsWith('/interaction/')) return providerCallback(req, res);
    interact(req, res).catch((error) => {
      res.statusCode = 500;
      res.end(String(error));
    });
  };

  return {
    issuer,
    accounts,
    state,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A browser: cookies per origin (paths ignored), redirects followed by hand. */
export class Browser {
  private readonly jars = new Map<string, Map<string, string>>();

  async get(url: string, extraCookies: Record<string, string> = {}): Promise<Response> {
    const { origin } = new URL(url);
    const jar = new Map([...(this.jars.get(origin) ?? []), ...Object.entries(extraCookies)]);
    const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
    const res = await fetch(url, { redirect: 'manual', headers: cookie ? { cookie } : {} });
    const stored = this.jars.get(origin) ?? new Map<string, string>();
    for (const header of res.headers.getSetCookie()) {
      const [pair, ...attributes] = header.split(';');
      const name = pair.slice(0, pair.indexOf('='));
      const value = pair.slice(pair.indexOf('=') + 1);
      const expired = attributes.some((a) => /^\s*(max-age=0|expires=thu, 01 jan 1970)/i.test(a));
      if (expired || value === '') stored.delete(name);
      else stored.set(name, value);
    }
    this.jars.set(origin, stored);
    return res;
  }

  /** Follows redirects from `url` until the next one would go to a URL starting with `stopAt`. */
  async followUntil(url: string, stopAt: string): Promise<{ visited: string[]; next: string }> {
    const visited: string[] = [];
    let current = url;
    for (let hop = 0; hop < 20; hop++) {
      visited.push(current);
      const res = await this.get(current);
      const location = res.headers.get('location');
      if (res.status < 300 || res.status >= 400 || !location)
        throw new Error(`${current} answered ${res.status} without a redirect: ${await res.text()}`);
      const next = new URL(location, current).href;
      if (next.startsWith(stopAt)) return { visited, next };
      current = next;
    }
    throw new Error('too many redirects');
  }
}
