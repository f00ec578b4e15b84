import { Button, Card, Group, Stack } from '@mantine/core';
import { useMemo, useState } from 'react';
import { api, ok, type Schemas } from '../../api/client';
import { SendEstimate } from '../../components/pace';
import { chunks, SplitProgress } from '../../components/split-send';
import { FormError } from '../../components/states';
import { TemplateFields } from '../../components/template-fields';
import { TemplatePicker } from '../../components/template-picker';
import { fieldsFromCsv, numbersFromCsv, type CsvFields } from '../../lib/csv';
import { count, localInputToIso, plural } from '../../lib/format';
import { personalise, rowsByNumber } from '../../lib/personalise';
import { checkRecipients } from '../../lib/recipients';
import { navigate } from '../../lib/router';
import type { Me } from '../../lib/session';
import { useSubmit } from '../../lib/use-submit';
import { AllowanceNote, planFit } from './allowance';
import { MessageInput } from './message-input';
import { PhoneAndSim } from './phone-and-sim';
import { RecipientChecks } from './recipient-checks';
import { RecipientsInput } from './recipients-input';
import { Schedule } from './schedule';

/** The Send form: recipients (typed or from a CSV), the message, phone, SIM and time, then one send or several. */
export function SendForm({ devices, me, country }: { devices: Schemas['Device'][]; me: Me; country: string | null }) {
  const [to, setTo] = useState('');
  const [body, setBody] = useState('');
  const [deviceId, setDeviceId] = useState<string>('');
  const [sim, setSim] = useState<string>('');
  const [scheduled, setScheduled] = useState(false);
  const [at, setAt] = useState('');
  const sending = useSubmit();
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
  const unfilled = personal !== null && (personal.unknown.length > 0 || personal.empty.length > 0);
  const device = devices.find((d) => d.id === deviceId) ?? devices.find((d) => d.is_default) ?? devices[0];
  const parts = chunks(valid, me.limits.batch_limit);
  const { words, overLeft, tooMany } = planFit(me, valid.length, parts.length);
  const canSplit =
    parts.length > 1 && !overLeft && invalid.length === 0 && body.length > 0 && !unfilled && !(scheduled && !at);
  const [made, setMade] = useState<{ ids: string[]; planned: number; error: unknown } | null>(null);

  /** The list as several sends the plan allows, one after another; stops at the first refused. */
  const sendInParts = () =>
    sending.run(async () => {
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
      if (ids.length === 0) throw refused;
      setMade({ ids, planned: parts.length, error: refused });
    });

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

  const submit = sending.submit(async () => {
    const sent = await ok(api.POST('/v1/messages', { body: { ...sendBody(), ...toOf(valid) } }));
    navigate(`/batches/${sent.batch.id}`);
  });

  /** The Recipients box less the entries `drop` names. */
  const keep = (drop: (c: (typeof checks)[number]) => boolean) =>
    setTo(
      checks
        .filter((c) => !drop(c))
        .map((c) => c.raw)
        .join('\n'),
    );

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
    <Card withBorder component="form" onSubmit={submit} noValidate maw={720}>
      <Stack>
        <RecipientsInput
          to={to}
          country={country}
          imported={imported}
          onChange={setTo}
          onCsvFile={(file) => void importCsv(file)}
        />
        {checks.length > 0 && (
          <RecipientChecks
            checks={checks}
            valid={valid}
            invalid={invalid}
            duplicates={duplicates}
            country={country}
            onRemoveInvalid={() => keep((c) => !!c.invalid)}
          />
        )}
        <TemplatePicker body={body} onPick={setBody} />
        <MessageInput body={body} personal={personal} onChange={setBody} />
        {csv && (
          <TemplateFields
            csv={csv}
            personal={personal}
            onLeaveOutEmpty={() => {
              const empty = new Set(personal?.empty.map((row) => row.e164));
              keep((c) => !!c.e164 && empty.has(c.e164));
            }}
          />
        )}
        <PhoneAndSim
          devices={devices}
          device={device}
          deviceId={deviceId}
          sim={sim}
          onDevice={(id) => {
            setDeviceId(id);
            setSim('');
          }}
          onSim={setSim}
        />
        {device && (
          <SendEstimate
            device={device}
            recipients={valid.length}
            scheduledAt={scheduled ? localInputToIso(at) : null}
          />
        )}
        <Schedule
          scheduled={scheduled}
          at={at}
          error={sending.field('scheduled_at')}
          onScheduled={setScheduled}
          onAt={setAt}
        />
        <FormError error={sending.error} />
        <AllowanceNote tooMany={tooMany} words={words} />
        <Group>
          <Button type="submit" loading={sending.busy} disabled={blocked}>
            {valid.length > 1 ? `Send to ${count(valid.length)} recipients` : 'Send'}
          </Button>
          {parts.length > 1 && !overLeft && (
            <Button variant="light" loading={sending.busy} disabled={!canSplit} onClick={() => void sendInParts()}>
              Send as {count(parts.length)} sends
            </Button>
          )}
        </Group>
      </Stack>
    </Card>
  );
}
