import { Alert, Button, Card, Code, Group, Stack, Text } from '@mantine/core';
import QRCode from 'qrcode';
import { useEffect, useState } from 'react';
import { api, ok, type Schemas } from '../api/client';
import { FormError } from '../components/states';

/** A pairing code as a QR code of its pair_url plus the typed code, polled until a phone uses it. */
export function Pairing({ onPaired }: { onPaired(device: Schemas['Device']): void }) {
  const [pairing, setPairing] = useState<Schemas['PairingCode'] | null>(null);
  const [svg, setSvg] = useState('');
  const [paired, setPaired] = useState<Schemas['Device'] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [now, setNow] = useState(Date.now());

  async function start() {
    setBusy(true);
    setError(null);
    setPaired(null);
    try {
      const code = await ok(api.POST('/v1/devices/pairing-codes'));
      setSvg(await QRCode.toString(code.pair_url, { type: 'svg', margin: 1, errorCorrectionLevel: 'M' }));
      setPairing(code);
      setNow(Date.now());
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  }

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

  return (
    <Card withBorder>
      <Stack>
        <Text fw={600} component="h2">
          Pair a phone
        </Text>
        {!pairing && (
          <Text size="sm" c="dimmed">
            Open the phone app, choose “Pair”, and scan the QR code or type the code shown here.
          </Text>
        )}
        {pairing && paired && (
          <Alert color="teal" title="Phone paired" role="status" data-testid="paired">
            {paired.name} is paired{paired.online ? ' and online' : ''}.
          </Alert>
        )}
        {pairing && !paired && !expired && (
          <Group align="flex-start" wrap="wrap">
            <div
              role="img"
              aria-label={`QR code for pairing code ${pairing.code}`}
              style={{ width: 180, height: 180, background: 'white' }}
              dangerouslySetInnerHTML={{ __html: svg }}
            />
            <Stack gap={4}>
              <Text size="sm">Code</Text>
              <Code fz="xl" fw={700} data-testid="pairing-code">
                {pairing.code}
              </Code>
              <Text size="sm" role="timer" aria-live="off">
                Expires in {countdown}
              </Text>
              <Text size="sm" c="dimmed" role="status">
                Waiting for a phone…
              </Text>
            </Stack>
          </Group>
        )}
        {pairing && !paired && expired && (
          <Alert color="orange" role="status">
            The code expired. Create a new one.
          </Alert>
        )}
        <FormError error={error} />
        <Group>
          <Button onClick={() => void start()} loading={busy}>
            {pairing ? 'New pairing code' : 'Create a pairing code'}
          </Button>
        </Group>
      </Stack>
    </Card>
  );
}
