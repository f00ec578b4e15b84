// The load that judges a production shape whole, for every shape it runs on: the process cluster of
// `npm run cluster` (test/cluster) and the containers of `docker compose` (test/compose). One module,
// so that a shape passes by surviving the same load and the same checks, never a lighter copy of them.
//
// The load: an account made as a person makes one (register, the mailed code, an API key), an HTTPS
// webhook for `message.failed`, two simulated phones on their live channels, 2,000 recipients in
// waves through the api addresses in turn; once the phones have sent a quarter, `kill()`; the rest
// sent meanwhile; then `recovered()`. The checks: every message final (delivered or failed, its batch
// completed) and sent exactly once, none handed out by an outbox fetch that began after its outcome
// was accepted, each failed message's event delivered in one delivery whose retries keep its id and
// answered 200 exactly once (twice only across the kill), every batch's workflow found settled by its search attributes, each
// phone's liveness workflow running; then `checkMembership()`. A failed check throws (vitest's
// expect), so this runs inside a test.
//
// What the module does not know is the shape, so the caller gives it:
// - `apiUrls`: where this process reaches the api (published ports for containers). Both phones and
//   every request go there; with one address the load is the same, through one api.
// - `temporalAddress` and `namespace`: a frontend this process can reach, for the searches and the
//   liveness workflows: the checks read Temporal, not only what the api says of it.
// - `verificationCode(email)`: the api mails the code to the SMTP server the caller gave it; only the
//   caller knows where that is (startSmtpServer's codeFor; from containers, started with
//   `listenHost: '0.0.0.0'` and `publicHost`, its url their SMTP_URL).
// - `receiver` (startLoadReceiver): it must be started before the service is configured, since its
//   URL must be reachable from the processes that deliver webhooks (the workers) and its certificate
//   trusted by them. On the host that is 127.0.0.1 and NODE_EXTRA_CA_CERTS (the global setup's, which
//   child processes inherit). From containers it is `listenHost: '0.0.0.0'`, `publicHost` an address
//   of the host the containers reach (its certificate then names it), `caCert` written to a file
//   mounted in the worker containers (they post the webhooks) and named by their NODE_EXTRA_CA_CERTS,
//   and WEBHOOK_ALLOW_PRIVATE_NETWORKS=true in the api (it checks the URL when the webhook is created)
//   and the workers (they check the address they connect to).
// - `kill()`: the fault, a Temporal server and a worker killed at once with SIGKILL; it resolves once
//   both are dead, not once they are back, so the second half is sent through the loss. For a
//   container, kill its process from the host (the pid `docker inspect -f '{{.State.Pid}}'` gives):
//   Docker may take `docker kill` for a manual stop, which a restart policy leaves stopped.
// - `recovered()`: resolves once what was killed runs again as new processes or containers (as a
//   supervisor, compose's restart policy or Kubernetes would start them), or throws after its own
//   timeout: the final checks must see the restarted shape, not the survivors alone.
// - `checkMembership()` (optional): what only the shape can check, e.g. each Temporal server's
//   services alive in `cluster_membership`; called last, and expected to throw (expect) on failure.
// - `log(line)` gets every phone's lines and `mark(step)` each step reached, for the caller to print
//   when a check fails; the load keeps nothing for that itself.
import { Client, Connection } from '@temporalio/client';
import { expect, inject } from 'vitest';
import { SimulatedPhone } from '../../tools/phone/phone';
import { batchWorkflowId, deviceWorkflowId } from '../../workflows/definitions';
import { startReceiver, type ReceiverOptions } from '../webhooks/receiver';
import { json, PASSWORD, sessionCookie, uniqueEmail } from './accounts';
import {
  expectOneDeliveryPerEvent,
  messageStatuses,
  observeApi,
  openDeliveries,
  textsSent,
  type Hook,
} from './observe-api';
import { serverTls } from './tls';

export const RECIPIENTS = 2000;
const WAVES = 20;
const PHONES = 2;
const FAILURE_RATIO = 0.1;
const recipient = (i: number) => `+1415556${String(i).padStart(4, '0')}`;
const LOOPBACK = new Set(['localhost', '127.0.0.1', '::1']);

/** The webhook endpoint of the load: every request it received, with what it answered. */
export interface LoadReceiver {
  /** What the webhook is created with: https://<publicHost>:<port>/hook. */
  url: string;
  port: number;
  hooks: Hook[];
  /** The test CA's certificate (PEM): what the processes delivering webhooks must trust. */
  caCert: string;
  close(): Promise<void>;
}

/**
 * The HTTPS endpoint the load's webhook posts to, answering 503 to the first request of some
 * deliveries (by the id's first digit) to have retries, 200 otherwise. Defaults: on 127.0.0.1 and
 * named so (the process cluster); `listenHost: '0.0.0.0'` and `publicHost` for containers, whose
 * certificate (signed by the test CA) then names publicHost too.
 */
export async function startLoadReceiver(
  options: Pick<ReceiverOptions, 'listenHost' | 'publicHost'> & {
    /** Each request's `at` is seconds since then (Date.now() by default): the caller's timeline. */
    since?: number;
  } = {},
): Promise<LoadReceiver> {
  const { ca } = inject('testTls');
  const since = options.since ?? Date.now();
  const publicHost = options.publicHost ?? '127.0.0.1';
  const hooks: Hook[] = [];
  const failFirst = (deliveryId: string) => /^[0-1]/.test(deliveryId);
  const receiver = await startReceiver(
    (request) => {
      const body = JSON.parse(request.raw) as { id: string; data: { id: string } };
      const first = !hooks.some((hook) => hook.deliveryId === request.deliveryId);
      const hook: Hook = {
        id: body.id,
        event: request.event,
        messageId: body.data.id,
        deliveryId: request.deliveryId,
        at: ((Date.now() - since) / 1000).toFixed(1),
        receivedAt: Date.now(),
      };
      hooks.push(hook);
      hook.answered = first && failFirst(request.deliveryId) ? 503 : 200;
      return { status: hook.answered, body: hook.answered === 200 ? 'ok' : 'try later' };
    },
    {
      listenHost: options.listenHost,
      publicHost,
      tls: LOOPBACK.has(publicHost) ? undefined : await serverTls(ca, [publicHost]),
    },
  );
  return { url: receiver.url, port: receiver.port, hooks, caCert: ca.cert, close: () => receiver.close() };
}

export interface ClusterLoadOptions {
  /** Base URLs of the api (http://127.0.0.1:<port>), one or more: requests and phones take them in turn. */
  apiUrls: string[];
  /** A Temporal frontend reachable from this process, and the namespace the workers run in. */
  temporalAddress: string;
  namespace: string;
  receiver: LoadReceiver;
  /** The six-digit code the api mailed to `email` at registration. */
  verificationCode: (email: string) => Promise<string>;
  /** Kills a Temporal server and a worker (SIGKILL); resolves once both are dead. */
  kill: () => Promise<void>;
  /** Resolves once both run again as new processes (or containers); throws after its own timeout. */
  recovered: () => Promise<void>;
  /** Last, the shape's own checks (Temporal membership); throws on a failure. */
  checkMembership?: () => Promise<void>;
  /** Every line a phone logs. */
  log?: (line: string) => void;
  /** Each step reached. */
  mark?: (step: string) => void;
}

export interface ClusterLoadResult {
  accountId: string;
  delivered: number;
  failed: number;
  webhookRequests: number;
  deliveries: number;
}

/** Runs the load and its checks (see the header); the phones are stopped when it returns or throws. */
export async function runClusterLoad(options: ClusterLoadOptions): Promise<ClusterLoadResult> {
  const { apiUrls, receiver } = options;
  const log = options.log ?? (() => undefined);
  const mark = options.mark ?? (() => undefined);
  const api = (i: number) => apiUrls[i % apiUrls.length];
  const hooks = receiver.hooks;
  const observed = observeApi(apiUrls);
  const phones: SimulatedPhone[] = [];
  const temporal = new Client({
    connection: await Connection.connect({ address: options.temporalAddress }),
    namespace: options.namespace,
  });
  try {
    const call = async (
      base: string,
      method: string,
      p: string,
      body?: unknown,
      headers: Record<string, string> = {},
    ) => fetch(base + p, json(method, body, headers));

    // An account as a person makes one, on the first api: register, the mailed code, an API key, a webhook.
    const email = uniqueEmail('cluster');
    const registered = await call(api(0), 'POST', '/v1/auth/register', { email, password: PASSWORD });
    expect(registered.status).toBe(201);
    const cookie = sessionCookie(registered);
    const accountId = ((await registered.json()) as { user: { id: string } }).user.id;
    const code = await options.verificationCode(email);
    expect((await call(api(0), 'POST', '/v1/auth/verify-email', { code }, { cookie })).status).toBe(200);
    const keyRes = await call(api(0), 'POST', '/v1/api-keys', { name: 'cluster' }, { cookie });
    expect(keyRes.status).toBe(201);
    const key = ((await keyRes.json()) as { key: string }).key;
    const withKey = (base: string, method: string, p: string, body?: unknown) =>
      call(base, method, p, body, { 'x-api-key': key });
    expect(
      (await withKey(api(1), 'POST', '/v1/webhooks', { url: receiver.url, events: ['message.failed'] })).status,
    ).toBe(201);

    // One phone on each api, on its live channel: told of the sends that came through the other
    // api, and of the rest of a send once it has reported a page.
    for (let i = 0; i < PHONES; i++) {
      const base = api(i);
      const pairing = await withKey(base, 'POST', '/v1/devices/pairing-codes');
      expect(pairing.status).toBe(201);
      const phone = new SimulatedPhone({
        server: base,
        code: ((await pairing.json()) as { code: string }).code,
        label: `phone ${i + 1}`,
        pollSeconds: 0.5,
        sentAfterMs: 100,
        deliveredAfterMs: 500,
        failureRatio: FAILURE_RATIO,
        log,
      });
      phones.push(phone);
      await phone.start();
    }
    const sentTexts = () => phones.reduce((sum, phone) => sum + phone.sendCounts.size, 0);

    // Waves of one batch per phone, each wave through the next api.
    const batchesOf = new Map<string, string[]>(phones.map((phone) => [phone.deviceId!, []]));
    const messageIds: string[] = [];
    let wave = 0;
    async function sendWave(): Promise<void> {
      const base = api(wave);
      const from = (wave * RECIPIENTS) / WAVES;
      const to = Array.from({ length: RECIPIENTS / WAVES }, (_, i) => recipient(from + i));
      for (const [p, phone] of phones.entries()) {
        const res = await withKey(base, 'POST', '/v1/messages', {
          body: `cluster wave ${wave + 1} from phone ${p + 1}`,
          to: to.filter((_, i) => i % phones.length === p),
          device_id: phone.deviceId,
        });
        expect(res.status).toBe(202);
        const accepted = (await res.json()) as { batch: { id: string }; message_ids: string[] };
        batchesOf.get(phone.deviceId!)!.push(accepted.batch.id);
        messageIds.push(...accepted.message_ids);
      }
      wave++;
    }

    // Half the waves, and the phones well into them.
    while (wave < WAVES / 2) await sendWave();
    mark(`${messageIds.length} recipients accepted`);
    await expect.poll(sentTexts, { timeout: 300_000, interval: 200 }).toBeGreaterThanOrEqual(RECIPIENTS / 4);
    mark(`${sentTexts()} texts sent`);

    // The fault, with work in flight.
    const killedAt = Date.now();
    await options.kill();
    mark('a Temporal server and a worker killed');

    // Sends go on meanwhile: the api reaches the surviving server through the one address.
    while (wave < WAVES) await sendWave();
    mark(`${messageIds.length} recipients accepted`);
    expect(messageIds).toHaveLength(RECIPIENTS);
    await options.recovered();
    const recoveredAt = Date.now();
    mark('the killed Temporal server and worker running again');

    // Every message final: delivered or failed, its batch completed; the phones told so all along.
    expect(phones.map((phone) => phone.live)).toEqual(phones.map(() => true));
    const batches = async () =>
      (
        (await (await withKey(api(0), 'GET', '/v1/batches?limit=100')).json()) as {
          data: Array<Record<string, unknown>>;
        }
      ).data;
    const unsettled = (batch: Record<string, unknown>) =>
      batch.status !== 'completed' ||
      (batch.delivered_count as number) + (batch.failed_count as number) !== batch.recipient_count;
    await expect
      .poll(async () => (await batches()).filter(unsettled).length, { timeout: 240_000, interval: 1000 })
      .toBe(0);
    mark('every message delivered or failed');
    const statuses = await messageStatuses((p) => withKey(api(1), 'GET', p));
    expect(statuses.size).toBe(RECIPIENTS);
    const byStatus = (status: string) => messageIds.filter((id) => statuses.get(id) === status);
    expect(byStatus('delivered').length + byStatus('failed').length).toBe(RECIPIENTS);
    expect(byStatus('failed').length).toBeGreaterThan(0);

    // None sent twice: each message went out exactly once, from one phone.
    const sends = textsSent(phones);
    expect(sends.size).toBe(RECIPIENTS);
    expect(Math.max(...sends.values())).toBe(1);

    // None handed out by an outbox fetch that began after the service had accepted its outcome.
    const late = observed.handOuts.filter(
      (h) => observed.acceptedAt.has(h.id) && h.requestedAt > observed.acceptedAt.get(h.id)!,
    );
    expect(late).toEqual([]);
    expect(observed.acceptedAt.size).toBe(RECIPIENTS);

    // Webhooks: every failed message's event answered 2xx, and recorded delivered.
    const expected = byStatus('failed').map((id) => `${id} message.failed`);
    const delivered = () => new Set(hooks.filter((h) => h.answered === 200).map((h) => `${h.messageId} ${h.event}`));
    await expect
      .poll(() => expected.filter((e) => !delivered().has(e)).length, { timeout: 120_000, interval: 1000 })
      .toBe(0);
    await expect
      .poll(() => openDeliveries((p) => withKey(api(0), 'GET', p)), { timeout: 120_000, interval: 1000 })
      .toBe(0);
    mark('every delivery recorded delivered');
    expect(delivered().size).toBe(expected.length);
    // Each delivery answered 200 exactly once: a set of (message, event) would hide a delivery the
    // service sent again after its endpoint had taken it (answered 200 twice). The one repeat a crash
    // may cause (docs/webhooks.md: a 200 whose record was lost with the killed worker or server is
    // sent again) is a first 200 in flight at the kill (within 30 s before it, or before the killed
    // processes ran again) and a second after the kill.
    const oks = new Map<string, Hook[]>();
    for (const h of hooks)
      oks.set(h.deliveryId, [...(oks.get(h.deliveryId) ?? []), ...(h.answered === 200 ? [h] : [])]);
    const acrossTheKill = (ok: Hook[]) =>
      ok.length === 2 &&
      ok[0].receivedAt! >= killedAt - 30_000 &&
      ok[0].receivedAt! < recoveredAt &&
      ok[1].receivedAt! >= killedAt;
    expect(
      [...oks]
        .filter(([, ok]) => ok.length !== 1 && !acrossTheKill(ok))
        .map(
          ([id, ok]) => `delivery ${id} answered 200 ${ok.length} times (at ${ok.map((h) => `${h.at} s`).join(', ')})`,
        ),
    ).toEqual([]);
    // One event per (message, event name), one delivery per event: its retries keep its id.
    const { deliveriesOf } = expectOneDeliveryPerEvent(hooks);

    // Every batch's workflow found by its search attributes, through the shape's visibility.
    for (const phone of phones) {
      const query =
        `WorkflowType = 'batchWorkflow' AND AccountId = '${accountId}' AND DeviceId = '${phone.deviceId}'` +
        ` AND ExecutionStatus = 'Completed'`;
      const wanted = batchesOf.get(phone.deviceId!)!.map(batchWorkflowId).sort();
      const found = async () => {
        const ids: string[] = [];
        for await (const execution of temporal.workflow.list({ query })) ids.push(execution.workflowId);
        return ids.sort();
      };
      await expect.poll(found, { timeout: 60_000, interval: 1000 }).toEqual(wanted);
    }
    mark('every batch found closed (settled) by AccountId and DeviceId');

    // Each phone's liveness workflow still running, and listed so.
    for (const phone of phones) {
      const liveness = await temporal.workflow.getHandle(deviceWorkflowId(phone.deviceId!)).describe();
      expect(liveness.status.name).toBe('RUNNING');
      const listed: string[] = [];
      for await (const execution of temporal.workflow.list({
        query: `DeviceId = '${phone.deviceId}' AND WorkflowType = 'deviceLivenessWorkflow' AND ExecutionStatus = 'Running'`,
      }))
        listed.push(execution.workflowId);
      expect(listed).toEqual([deviceWorkflowId(phone.deviceId!)]);
    }

    if (options.checkMembership) {
      await options.checkMembership();
      mark('every Temporal server alive in the membership');
    }
    const result: ClusterLoadResult = {
      accountId,
      delivered: byStatus('delivered').length,
      failed: byStatus('failed').length,
      webhookRequests: hooks.length,
      deliveries: deliveriesOf.size,
    };
    mark(
      `done: ${result.delivered} delivered, ${result.failed} failed, ` +
        `${result.webhookRequests} webhook requests for ${result.deliveries} deliveries`,
    );
    return result;
  } finally {
    await Promise.all(phones.map((phone) => phone.stop()));
    observed.restore();
    await temporal.connection.close();
  }
}
