import { Alert, Anchor, Button, Card, Code, Group, List, Stack, Text } from '@mantine/core';
import { useEffect, useState, type ReactNode } from 'react';
import { api, ok, type Schemas } from '../api/client';
import { CopyValue } from '../components/copy-value';
import { FormError } from '../components/states';
import { plural, when } from '../lib/format';
import { CODE_MINUTES, RECENT_MS, REFUSAL_WORDS } from '../lib/pairing-refusals';
import { Link } from '../lib/router';
import { LIVE_MS, useLoad } from '../lib/use-load';
import { useSubmit } from '../lib/use-submit';

const APP_RELEASES = 'https://github.com/capcom6/android-sms-gateway/releases';

/**
 * Why a phone could not use this API URL, if it cannot: the app's release build allows plain http only
 * to 127.0.0.1 on the phone itself (its network_security_config.xml), and localhost is this computer.
 */
function unreachableBecause(apiUrl: string): string | null {
  const url = new URL(apiUrl);
  const reasons: string[] = [];
  if (/^(localhost|127\.|\[::1\]$)/.test(url.hostname)) reasons.push(`${url.hostname} is this computer, not the phone`);
  if (url.protocol !== 'https:') reasons.push('the app connects only over https');
  return reasons.length ? reasons.join(', and ') : null;
}

/** A word as the app shows it on its screens. */
const Ui = ({ children }: { children: ReactNode }) => (
  <Text span inherit fw={700}>
    {children}
  </Text>
);

/** What to do when the SMSGate app closed after Continue: its code was refused (docs/phones.md). */
const IfTheAppCloses = () => (
  <Text size="sm" data-testid="if-app-closes">
    If the app closes after <Ui>Continue</Ui>, the code was refused: this card says why, unless its first three
    characters were mistyped (then it matches no code of yours). Create a new code, open the app, tap <Ui>Offline</Ui> (
    <Ui>Start Service</Ui>) and type the new code in the dialog’s <Ui>By Code</Ui> tab, then <Ui>Continue</Ui>: there a
    refused code shows a message and the app stays open.
  </Text>
);

/**
 * Refused attempts with the code on screen, and with any code in the last hour (the app retries the
 * code it started with in the background, so an earlier code can show up again), newest first.
 */
function Refusals({ refusals, current }: { refusals: Schemas['PairingRefusal'][]; current: string | null }) {
  if (refusals.length === 0) return null;
  return (
    <Stack gap="xs" data-testid="pairing-refusals">
      {refusals.map((refusal) => {
        const words = REFUSAL_WORDS[refusal.reason];
        return (
          <Alert
            key={refusal.id}
            color="red"
            role="alert"
            title={refusal.pairing_code_id === current ? 'This code was refused' : 'An earlier code was refused'}
            data-testid="pairing-refused"
          >
            <Text size="sm">
              {words.what} {words.next}
            </Text>
            <Text size="xs">
              {plural(refusal.attempts, 'try', 'tries')}, the latest {when(refusal.last_attempt_at)}.
            </Text>
          </Alert>
        );
      })}
      <IfTheAppCloses />
    </Stack>
  );
}

/**
 * A pairing code and what to type into the SMSGate Android app, in the app's words and order (its
 * res/xml/cloud_server_preferences.xml, res/values/strings.xml and the home screen's first-start
 * dialog), polled until a phone uses it.
 */
/**
 * When the plan's phone limit is reached, before a code is made: a new phone would be refused, and
 * only a phone paired already (its app reinstalled) can use a code.
 */
function DeviceLimit({ pairedCount }: { pairedCount: number | undefined }) {
  const me = useLoad(() => ok(api.GET('/v1/auth/me')), []);
  const limits = me.data?.limits;
  if (!limits || pairedCount === undefined || pairedCount < limits.device_limit) return null;
  return (
    <Alert color="yellow" title="Your plan’s phone limit is reached" data-testid="device-limit">
      The {limits.plan_name} plan allows {plural(limits.device_limit, 'paired phone')}, and{' '}
      {pairedCount === 1 ? '1 is' : `${pairedCount} are`} paired: a new phone is refused. Unpair a phone you no longer
      use below, or change plan on{' '}
      <Anchor component={Link} href="/account" inherit c="inherit" underline="always">
        Account
      </Anchor>
      , then pair. A code still pairs a phone that is paired already again (after its app was reinstalled).
    </Alert>
  );
}

export function Pairing({
  onPaired,
  pairedCount,
}: {
  onPaired(device: Schemas['Device']): void;
  /** Phones paired now, once known: the card says when the plan has room for no more. */
  pairedCount?: number;
}) {
  const [pairing, setPairing] = useState<Schemas['PairingCode'] | null>(null);
  const [paired, setPaired] = useState<Schemas['Device'] | null>(null);
  const creating = useSubmit();
  const { setError } = creating;
  const [now, setNow] = useState(Date.now());

  const start = () =>
    creating.run(async () => {
      setPaired(null);
      setPairing(await ok(api.POST('/v1/devices/pairing-codes', { body: { expires_in_minutes: CODE_MINUTES } })));
      setNow(Date.now());
    });

  // Refused attempts, live: the code on screen's, and any code's in the last hour (also after a reload).
  const refused = useLoad(
    () => ok(api.GET('/v1/devices/pairing-refusals', { params: { query: { limit: 20 } } })).then((r) => r.data),
    [],
    LIVE_MS,
  );
  const refusals = paired
    ? []
    : (refused.data ?? [])
        .filter((r) => r.pairing_code_id === pairing?.id || Date.now() - Date.parse(r.last_attempt_at) < RECENT_MS)
        .sort((a, b) => Date.parse(b.last_attempt_at) - Date.parse(a.last_attempt_at))
        .slice(0, 3);

  const currentRefusal = refusals.find((r) => r.pairing_code_id === pairing?.id);
  const expired = pairing ? new Date(pairing.expires_at).getTime() <= now : false;
  useEffect(() => {
    if (!pairing || paired || expired) return;
    const tick = window.setInterval(() => setNow(Date.now()), 1000);
    const poll = window.setInterval(async () => {
      try {
        const status = await ok(api.GET('/v1/devices/pairing-codes/{id}', { params: { path: { id: pairing.id } } }));
        if (status.consumed && status.device) {
          setPaired(status.device);
          onPaired(status.device);
        }
      } catch (e) {
        setError(e);
      }
    }, 2000);
    return () => {
      window.clearInterval(tick);
      window.clearInterval(poll);
    };
  }, [pairing, paired, expired, onPaired]);

  const left = pairing ? Math.max(0, Math.ceil((new Date(pairing.expires_at).getTime() - now) / 1000)) : 0;
  const countdown = `${Math.floor(left / 60)}:${String(left % 60).padStart(2, '0')}`;
  const unreachable = pairing ? unreachableBecause(pairing.smsgate_api_url) : null;

  return (
    <Card withBorder data-testid="pairing-card">
      <Stack>
        <Text fw={600} component="h2">
          Pair a phone
        </Text>
        {!paired && <DeviceLimit pairedCount={pairedCount} />}
        {!pairing && (
          <Text size="sm" c="dimmed">
            Phones send through the SMSGate Android app (SMS Gateway for Android). Create a code: this card then shows
            what to type into the app, step by step. A code lasts {CODE_MINUTES} minutes and pairs one phone.
          </Text>
        )}
        {pairing && paired && (
          <Alert color="teal" title="Phone paired" role="status" data-testid="paired">
            {paired.name} is paired{paired.online ? ' and online' : ''}.
          </Alert>
        )}
        {pairing && !paired && !expired && (
          <List type="ordered" spacing="md" size="sm" data-testid="pairing-steps">
            <List.Item>
              Install <Ui>SMSGate</Ui> (SMS Gateway for Android, Android 5 or newer) on the phone:{' '}
              <Code>app-release.apk</Code> from the{' '}
              <Anchor inherit href={APP_RELEASES} target="_blank" rel="noreferrer">
                app’s releases
              </Anchor>
              .
            </List.Item>
            <List.Item>
              <Stack gap="xs">
                <Text size="sm">
                  In the app, open <Ui>SETTINGS</Ui> → <Ui>Cloud server…</Ui> and set:
                </Text>
                <Text size="sm">
                  <Ui>API URL</Ui> (replace the address that is there)
                </Text>
                <CopyValue label="API URL" value={pairing.smsgate_api_url} testId="smsgate-api-url" />
                {unreachable && (
                  <Alert color="orange" p="xs" data-testid="unreachable">
                    A phone cannot use this address: {unreachable}. Start the service with PUBLIC_URL set to an https
                    address the phone reaches (a tunnel will do: see “The SMSGate app” in docs/phones.md).
                  </Alert>
                )}
                <Text size="sm">
                  <Ui>Private Token</Ui>: this pairing code, good for one phone,{' '}
                  <Text span size="sm" role="timer" aria-live="off">
                    expires in {countdown}
                  </Text>
                </Text>
                <CopyValue label="Private Token" value={pairing.code} testId="pairing-code" />
                <Text size="sm">
                  <Ui>Notification channel</Ui>: <Ui>SSE Only</Ui> (with Auto the app waits for pushes this service
                  cannot send)
                </Text>
              </Stack>
            </List.Item>
            <List.Item>
              On <Ui>Home</Ui>, switch on <Ui>Cloud server</Ui> and tap <Ui>Offline</Ui> (<Ui>Start Service</Ui> in
              newer versions). In the dialog keep <Ui>Sign Up</Ui>, tap <Ui>Continue</Ui> and allow the SMS permissions.
              Once the phone shows here, stop and start the app once (<Ui>Online</Ui>, or <Ui>Stop Service</Ui>, then
              start it again): it reads its settings and starts its heartbeat when it starts.
              {refusals.length === 0 && <IfTheAppCloses />}
            </List.Item>
            <List.Item>
              <Text size="sm" c="dimmed" role="status" data-testid="pairing-wait">
                {currentRefusal
                  ? 'A phone tried this code and was refused: why and what to do are below. The code works until it expires.'
                  : 'Waiting for the phone… it appears here when it pairs.'}
              </Text>
            </List.Item>
          </List>
        )}
        {pairing && !paired && !expired && (
          <Stack gap={4} data-testid="simulator">
            <Text size="xs" c="dimmed">
              No phone at hand? The simulator pairs with the same code, run in the repository folder:
            </Text>
            <CopyValue
              label="simulator command"
              value={`npm run phone -- --pair-url '${pairing.pair_url}'`}
              testId="simulator-command"
            />
          </Stack>
        )}
        {pairing && !paired && expired && (
          <Alert color="orange" role="status">
            The code expired. Create a new one.
          </Alert>
        )}
        <Refusals refusals={refusals} current={pairing?.id ?? null} />
        <FormError error={creating.error} />
        <Group>
          <Button onClick={() => void start()} loading={creating.busy}>
            {pairing ? 'New pairing code' : 'Create a pairing code'}
          </Button>
        </Group>
      </Stack>
    </Card>
  );
}
