import { Alert, Anchor, AppShell, Burger, Button, Group, NavLink, Text } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useCallback, useEffect, useMemo, useState, type ReactNode } from 'react';
import { api, ApiFailure, ok, SESSION_ENDED } from './api/client';
import { ErrorState, Loading } from './components/states';
import { Link, match, navigate, useLocation } from './lib/router';
import { SessionContext, useSession, type Me, type SessionState } from './lib/session';
import { SignIn } from './pages/auth/sign-in';
import { SignUp } from './pages/auth/sign-up';
import { ResetPassword } from './pages/auth/reset-password';
import { VerifyEmail } from './pages/auth/verify-email';
import { Overview } from './pages/overview';
import { Phones } from './pages/phones';
import { Send } from './pages/send';
import { Batches } from './pages/batches';
import { BatchDetail } from './pages/batch-detail';
import { Messages } from './pages/messages';
import { MessageDetail } from './pages/message-detail';
import { Inbox } from './pages/inbox';
import { Thread } from './pages/thread';
import { Webhooks } from './pages/webhooks';
import { OptOuts } from './pages/opt-outs';
import { Templates } from './pages/templates';
import { ApiKeys } from './pages/api-keys';
import { Account } from './pages/account';
import { NotFound } from './pages/not-found';

const PUBLIC: Record<string, () => ReactNode> = {
  '/sign-in': () => <SignIn />,
  '/sign-up': () => <SignUp />,
  '/reset-password': () => <ResetPassword />,
};

const NAV = [
  { href: '/', label: 'Overview' },
  { href: '/phones', label: 'Phones' },
  { href: '/send', label: 'Send' },
  { href: '/templates', label: 'Templates' },
  { href: '/batches', label: 'Batches' },
  { href: '/messages', label: 'Messages' },
  { href: '/inbox', label: 'Inbox' },
  { href: '/webhooks', label: 'Webhooks' },
  { href: '/opt-outs', label: 'Opt-outs' },
  { href: '/api-keys', label: 'API keys' },
  { href: '/account', label: 'Account' },
];

const ROUTES: Array<[string, (params: Record<string, string>) => ReactNode]> = [
  ['/', () => <Overview />],
  ['/verify-email', () => <VerifyEmail />],
  ['/phones', () => <Phones />],
  ['/send', () => <Send />],
  ['/templates', () => <Templates />],
  ['/batches', () => <Batches />],
  ['/batches/:id', (p) => <BatchDetail id={p.id} />],
  ['/messages', () => <Messages />],
  ['/messages/:id', (p) => <MessageDetail id={p.id} />],
  ['/inbox', () => <Inbox />],
  ['/inbox/:number', (p) => <Thread number={p.number} />],
  ['/webhooks', () => <Webhooks />],
  ['/opt-outs', () => <OptOuts />],
  ['/api-keys', () => <ApiKeys />],
  ['/account', () => <Account />],
];

type Auth =
  | { state: 'loading' }
  | { state: 'out'; ended?: boolean }
  | { state: 'in'; me: Me }
  | { state: 'error'; error: unknown };

export function App() {
  const { path } = useLocation();
  const [auth, setAuth] = useState<Auth>({ state: 'loading' });

  const refresh = useCallback(async () => {
    try {
      setAuth({ state: 'in', me: await ok(api.GET('/v1/auth/me')) });
    } catch (error) {
      if (error instanceof ApiFailure && error.problem.status === 401) setAuth({ state: 'out' });
      else setAuth({ state: 'error', error });
    }
  }, []);

  useEffect(() => {
    void refresh();
  }, [refresh]);

  // Any answer saying the session is gone (signed out elsewhere, expired) signs this tab out too.
  useEffect(() => {
    const ended = () => setAuth((current) => (current.state === 'in' ? { state: 'out', ended: true } : current));
    window.addEventListener(SESSION_ENDED, ended);
    return () => window.removeEventListener(SESSION_ENDED, ended);
  }, []);

  const session = useMemo<SessionState | null>(
    () =>
      auth.state === 'in'
        ? {
            me: auth.me,
            refresh,
            signOut: async () => {
              await ok(api.POST('/v1/auth/logout'));
              setAuth({ state: 'out' });
              navigate('/sign-in', { replace: true });
            },
          }
        : null,
    [auth, refresh],
  );

  const publicScreen = Object.hasOwn(PUBLIC, path) ? PUBLIC[path] : undefined;
  useEffect(() => {
    if (auth.state === 'in' && publicScreen) navigate('/', { replace: true });
    if (auth.state === 'out' && !publicScreen) {
      // Google sign-in comes back to / with ?error=… when it failed: sign-in shows it.
      const error = new URLSearchParams(window.location.search).get('error');
      const query = new URLSearchParams();
      if (path !== '/') query.set('next', path + window.location.search);
      if (error) query.set('error', error);
      if (auth.ended) query.set('ended', '1');
      navigate(`/sign-in${query.size ? `?${query}` : ''}`, { replace: true });
    }
  }, [auth, publicScreen, path]);

  if (auth.state === 'loading') return <Loading label="Loading your account…" />;
  if (auth.state === 'error') return <ErrorState error={auth.error} retry={() => void refresh()} />;
  if (auth.state === 'out') {
    return (
      <main style={{ maxWidth: 440, margin: '0 auto', padding: 16 }}>
        {/* Signing in or up, a person sees which service it is for. */}
        <Text component="p" fw={700} size="xl" mt="md" mb={0} data-testid="product-name">
          Phone-Gateway
        </Text>
        {publicScreen ? publicScreen() : <Loading />}
        <SignedInHook onSignedIn={refresh} />
      </main>
    );
  }
  return (
    <SessionContext.Provider value={session}>
      <Shell path={path} />
    </SessionContext.Provider>
  );
}

/**
 * Sign-in screens announce success with a `signed-in` event naming where to go; the app reads
 * /v1/auth/me first, so the screen it goes to renders signed in.
 */
function SignedInHook({ onSignedIn }: { onSignedIn: () => Promise<void> }) {
  useEffect(() => {
    const handler = (event: Event) => {
      const next = (event as CustomEvent<string | undefined>).detail;
      void onSignedIn().then(() =>
        navigate(next && next.startsWith('/') && !next.startsWith('//') ? next : '/', { replace: true }),
      );
    };
    window.addEventListener('signed-in', handler);
    return () => window.removeEventListener('signed-in', handler);
  }, [onSignedIn]);
  return null;
}

function Shell({ path }: { path: string }) {
  const [opened, { toggle, close }] = useDisclosure(false);
  const session = useSession();
  let screen: ReactNode = <NotFound />;
  for (const [pattern, render] of ROUTES) {
    const params = match(pattern, path);
    if (params) {
      screen = render(params);
      break;
    }
  }
  const unverified = !session.me.user.email_verified_at;
  // Coming back to the tab asks whether the session still holds, so an ended one shows at once.
  useEffect(() => {
    const check = () => {
      if (document.visibilityState === 'visible') void ok(api.GET('/v1/auth/me')).catch(() => undefined);
    };
    document.addEventListener('visibilitychange', check);
    window.addEventListener('focus', check);
    return () => {
      document.removeEventListener('visibilitychange', check);
      window.removeEventListener('focus', check);
    };
  }, []);
  return (
    <AppShell
      header={{ height: 56 }}
      navbar={{ width: 220, breakpoint: 'sm', collapsed: { mobile: !opened } }}
      padding="md"
    >
      <a
        href="#main"
        className="skip-link"
        onClick={(event) => {
          event.preventDefault();
          document.getElementById('main')?.focus();
        }}
      >
        Skip to content
      </a>
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap">
            <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label="Toggle navigation" />
            <Anchor component={Link} href="/" fw={700} c="inherit" underline="never">
              Phone-Gateway
            </Anchor>
          </Group>
          <Group gap="sm" wrap="nowrap">
            <Text size="sm" c="dimmed" visibleFrom="sm">
              {session.me.user.email}
            </Text>
            <Button variant="default" size="xs" onClick={() => void session.signOut()}>
              Sign out
            </Button>
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" aria-label="Main navigation">
        <div>
          {NAV.map((item) => (
            <NavLink
              key={item.href}
              component={Link}
              href={item.href}
              label={item.label}
              active={item.href === '/' ? path === '/' : path.startsWith(item.href)}
              aria-current={(item.href === '/' ? path === '/' : path.startsWith(item.href)) ? 'page' : undefined}
              onClick={close}
            />
          ))}
        </div>
      </AppShell.Navbar>
      <AppShell.Main id="main" tabIndex={-1}>
        <div>
          {unverified && path !== '/verify-email' && (
            <Alert color="yellow" mb="md" title="Verify your email">
              Sending is blocked until your email address is verified.{' '}
              <Anchor component={Link} href="/verify-email">
                Enter the code
              </Anchor>
            </Alert>
          )}
          {screen}
        </div>
      </AppShell.Main>
    </AppShell>
  );
}
