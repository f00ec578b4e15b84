import {
  Anchor,
  Badge,
  Button,
  Card,
  FileButton,
  Group,
  Select,
  Stack,
  Switch,
  Text,
  Textarea,
  TextInput,
} from '@mantine/core';
import { useMemo, useState, type FormEvent } from 'react';
import { countSegments } from '../../../src/messages/segments';
import { api, ApiFailure, ok, type Schemas } from '../api/client';
import { Page } from '../components/page';
import { Empty, FormError, Load } from '../components/states';
import { count, localInputToIso, plural, timeZone } from '../lib/format';
import type { Me } from '../lib/session';
import { fieldsFromCsv, numbersFromCsv, type CsvFields } from '../lib/csv';
import { personalise, rowsByNumber } from '../lib/personalise';
import { TemplateFields } from '../components/template-fields';
import { TemplatePicker } from '../components/template-picker';
import { defaultCountry, notANumber } from '../lib/numbers';
import { checkRecipients } from '../lib/recipients';
import { chunks, SplitProgress } from '../components/split-send';
import { Link, navigate } from '../lib/router';
import { useLoad } from '../lib/use-load';
import { simLabel, simsOf } from '../lib/sims';
import { SendEstimate } from '../components/pace';

export function Send() {
  // The account's usage is read afresh here: what is left today decides what this send may do.
  const state = useLoad(
    () => Promise.all([ok(api.GET('/v1/devices')).then((r) => r.data), ok(api.GET('/v1/auth/me')), defaultCountry()]),
    [],
  );
  return (
    <Page title="Send a text">
      <Load state={state}>
        {([list, me, country]) =>
          list.length === 0 ? (
            <Empty title="No phone to send with">
              <Anchor component={Link} href="/phones">
                Pair a phone
              </Anchor>{' '}
              first: texts go out through it.
            </Empty>
          ) : (
            <SendForm devices={list} me={me} country={country} />
          )
        }
      </Load>
    </Page>
  );
}

/** What the plan still allows: the fewest of today's and this month's messages left. */
function allowance(me: Me) {
  const today = Math.max(0, me.limits.daily_limit - me.usage.sent_today);
  const month = Math.max(0, me.limits.monthly_limit - me.usage.sent_this_month);
  return today <= month
    ? { left: today, words: `${plural(today, 'message')} left today (${count(me.limits.daily_limit)} a day)` }
    : { left: month, words: `${plural(month, 'message')} left this month (${count(me.limits.monthly_limit)} a month)` };
}

function SendForm({ devices, me, country }: { devices: Schemas['Device'][]; me: Me; country: string | null }) {
  const [to, setTo] = useState('');
  const [body, setBody] = useState('');
  const [deviceId, setDeviceId] = useState<string>('');
  const [sim, setSim] = useState<string>('');
  const [scheduled, setScheduled] = useState(false);
  const [at, setAt] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [imported, setImported] = useState<string | null>(null);
  const [csv, setCsv] = useState<CsvFields | null>(null);

  /**
   * A CSV file's numbers join the typed ones, one a line, and go through the same checks; its other
   * columns (the last file's) become fields the message may use.
   */
  async function importCsv(file: File | null) {
    if (!file) return;
    const text = await file.text();
    const numbers = numbersFromCsv(text);
    setTo((typed) => [typed.trim(), ...numbers].filter(Boolean).join('\n'));
    setCsv(fieldsFromCsv(text));
    setImported(`${plural(numbers.length, 'number')} added from ${file.name}.`);
  }

  const checks = useMemo(() => checkRecipients(to, country), [to, country]);
  const valid = checks.filter((c) => c.e164 && c.duplicateOf === undefined);
  const invalid = checks.filter((c) => c.invalid);
  const duplicates = checks.filter((c) => c.duplicateOf !== undefined);
  const byNumber = useMemo(() => (csv ? rowsByNumber(csv, country) : new Map()), [csv, country]);
  const personal = useMemo(
    () =>
      personalise(
        body,
        csv,
        byNumber,
        valid.map((c) => c.e164!),
      ),
    [body, csv, byNumber, valid],
  );
  // Each recipient's own text may be longer than the template: what one may cost is the longest's.
  const segments = personal ? personal.longest : countSegments(body);
  const chars = personal ? personal.longest.chars : [...body].length;
  const unfilled = personal !== null && (personal.unknown.length > 0 || personal.empty.length > 0);
  const device = devices.find((d) => d.id === deviceId) ?? devices.find((d) => d.is_default) ?? devices[0];
  const sims = device ? simsOf(device) : [];
  const field = (name: string) => (error instanceof ApiFailure ? error.field(name) : undefined);
  const plan = allowance(me);
  const parts = chunks(valid, me.limits.batch_limit);
  // A list over the plan's recipients per send can go as several sends; one over what is left today
  // or this month cannot, split or not.
  const overLeft = valid.length > plan.left;
  const tooMany =
    valid.length > me.limits.batch_limit
      ? `The ${me.limits.plan_name} plan allows ${plural(me.limits.batch_limit, 'recipient')} a send, and this list has ${count(valid.length)}: ` +
        (overLeft
          ? `even as ${plural(parts.length, 'send')}, it is more than the plan has (${plan.words}).`
          : `it can go as ${plural(parts.length, 'send')} of at most ${count(me.limits.batch_limit)}, one batch each.`) +
        ' The plans on Account allow more.'
      : overLeft
        ? `This send has ${plural(valid.length, 'recipient')}; the plan has ${plan.words}.`
        : null;
  const canSplit =
    parts.length > 1 && !overLeft && invalid.length === 0 && body.length > 0 && !unfilled && !(scheduled && !at);
  const [made, setMade] = useState<{ ids: string[]; planned: number; error: unknown } | null>(null);

  /** The list as several sends the plan allows, one after another; stops at the first refused. */
  async function sendInParts() {
    setBusy(true);
    setError(null);
    const ids: string[] = [];
    let refused: unknown = null;
    for (const part of parts) {
      try {
        const sent = await ok(api.POST('/v1/messages', { body: { ...sendBody(), ...toOf(part) } }));
        ids.push(sent.batch.id);
      } catch (e) {
        refused = e;
        break;
      }
    }
    setBusy(false);
    if (ids.length === 0) setError(refused);
    else setMade({ ids, planned: parts.length, error: refused });
  }

  /** The recipients of a send, with each one's fields when the message is a template over the CSV. */
  const toOf = (list: typeof valid) => {
    const numbers = list.map((c) => c.e164!);
    return personal ? { to: numbers, variables: numbers.map(personal.variables) } : { to: numbers };
  };

  const sendBody = () => ({
    body,
    device_id: deviceId || null,
    sim_subscription_id: sim ? Number(sim) : null,
    scheduled_at: scheduled ? localInputToIso(at) : null,
  });

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const sent = await ok(
        api.POST('/v1/messages', {
          body: { ...sendBody(), ...toOf(valid) },
        }),
      );
      navigate(`/batches/${sent.batch.id}`);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  }

  if (made)
    return (
      <SplitProgress
        ids={made.ids}
        planned={made.planned}
        error={made.error}
        onDone={() => {
          setMade(null);
          setTo('');
        }}
      />
    );

  const blocked =
    tooMany !== null || valid.length === 0 || invalid.length > 0 || body.length === 0 || unfilled || (scheduled && !at);
  return (
    <Card withBorder component="form" onSubmit={(event) => void submit(event)} noValidate maw={720}>
      <Stack>
        <Textarea
          label="Recipients"
          description={`One number a line, or numbers separated by commas; spaces, dashes and brackets inside a number are fine.${country ? ` Numbers without + and a country code are read as ${country} numbers.` : ' Write each with + and its country code.'}`}
          placeholder={'+14155550123\n(415) 555-0124'}
          autosize
          minRows={2}
          value={to}
          onChange={(e) => setTo(e.currentTarget.value)}
        />
        <Group gap="sm">
          <FileButton onChange={(file) => void importCsv(file)} accept=".csv,text/csv,text/plain">
            {(props) => (
              <Button variant="default" size="xs" {...props}>
                Add numbers from a CSV file
              </Button>
            )}
          </FileButton>
          {imported && (
            <Text size="sm" role="status">
              {imported}
            </Text>
          )}
        </Group>
        {checks.length > 0 && (
          <div aria-live="polite">
            <Text size="sm" data-testid="recipient-summary">
              {valid.length} valid recipient{valid.length === 1 ? '' : 's'}
              {invalid.length > 0 && `, ${invalid.length} invalid`}
              {duplicates.length > 0 &&
                `, ${duplicates.length} duplicate${duplicates.length === 1 ? '' : 's'} (sent once)`}
            </Text>
            <Group
              gap={4}
              mt={4}
              component="ul"
              style={{ listStyle: 'none', padding: 0 }}
              aria-label="Recipients as checked"
            >
              {checks.map((c, i) => (
                <li key={i}>
                  <Badge
                    variant="light"
                    color={c.invalid ? 'red' : c.duplicateOf !== undefined ? 'orange' : 'teal'}
                    title={c.invalid ? 'not a phone number' : c.duplicateOf !== undefined ? 'duplicate' : c.e164}
                  >
                    <span style={{ color: 'var(--pg-badge-text)', textTransform: 'none' }}>
                      {c.raw}
                      {c.invalid ? ': invalid' : c.duplicateOf !== undefined ? ': duplicate' : ''}
                    </span>
                  </Badge>
                </li>
              ))}
            </Group>
            {invalid.length > 0 && (
              <Text size="xs" c="var(--pg-danger)" role="alert" data-testid="recipient-error">
                {notANumber(invalid[0].raw, country)}
                {invalid.length > 1 &&
                  ` ${plural(invalid.length - 1, 'other entry is', 'other entries are')} not a number either (marked invalid).`}
              </Text>
            )}
            {invalid.length > 0 && (
              <Button
                variant="default"
                size="xs"
                mt={4}
                onClick={() =>
                  setTo(
                    checks
                      .filter((c) => !c.invalid)
                      .map((c) => c.raw)
                      .join('\n'),
                  )
                }
              >
                {invalid.length === 1
                  ? 'Remove the invalid entry'
                  : `Remove the ${count(invalid.length)} invalid entries`}
              </Button>
            )}
          </div>
        )}
        <TemplatePicker body={body} onPick={setBody} />
        <Textarea
          label="Message"
          required
          autosize
          minRows={3}
          value={body}
          onChange={(e) => setBody(e.currentTarget.value)}
          description={
            <span data-testid="segment-counter">
              {personal && 'Longest text: '}
              {chars} character{chars === 1 ? '' : 's'} · {segments.encoding === 'gsm7' ? 'GSM-7' : 'UCS-2'} ·{' '}
              {segments.segments} segment{segments.segments === 1 ? '' : 's'}
            </span>
          }
        />
        {csv && (
          <TemplateFields
            csv={csv}
            personal={personal}
            onLeaveOutEmpty={() => {
              const empty = new Set(personal?.empty.map((row) => row.e164));
              setTo(
                checks
                  .filter((c) => !c.e164 || !empty.has(c.e164))
                  .map((c) => c.raw)
                  .join('\n'),
              );
            }}
          />
        )}
        <Group grow wrap="wrap">
          <Select
            label="Phone"
            data={[
              { value: '', label: 'Default phone' },
              ...devices.map((d) => ({ value: d.id, label: `${d.name}${d.online ? '' : ' (offline)'}` })),
            ]}
            value={deviceId}
            onChange={(v) => {
              setDeviceId(v ?? '');
              setSim('');
            }}
            allowDeselect={false}
          />
          <Select
            label="SIM"
            data={[
              { value: '', label: 'Phone default' },
              ...sims.map((s) => ({ value: String(s.subscription_id), label: simLabel(s) })),
            ]}
            value={sim}
            onChange={(v) => setSim(v ?? '')}
            allowDeselect={false}
          />
        </Group>
        {device && (
          <SendEstimate
            device={device}
            recipients={valid.length}
            scheduledAt={scheduled ? localInputToIso(at) : null}
          />
        )}
        <Switch
          label="Schedule for later"
          checked={scheduled}
          onChange={(e) => setScheduled(e.currentTarget.checked)}
        />
        {scheduled && (
          <TextInput
            type="datetime-local"
            label={`Send at (${timeZone})`}
            value={at}
            error={field('scheduled_at')}
            onChange={(e) => setAt(e.currentTarget.value)}
            required
          />
        )}
        <FormError error={error} />
        {tooMany ? (
          <Text size="sm" c="var(--pg-danger)" data-testid="send-allowance">
            {tooMany}
          </Text>
        ) : (
          <Text size="sm" c="dimmed" data-testid="send-allowance">
            {plan.words[0].toUpperCase() + plan.words.slice(1)}.
          </Text>
        )}
        <Group>
          <Button type="submit" loading={busy} disabled={blocked}>
            {valid.length > 1 ? `Send to ${count(valid.length)} recipients` : 'Send'}
          </Button>
          {parts.length > 1 && !overLeft && (
            <Button variant="light" loading={busy} disabled={!canSplit} onClick={() => void sendInParts()}>
              Send as {count(parts.length)} sends
            </Button>
          )}
        </Group>
      </Stack>
    </Card>
  );
}
