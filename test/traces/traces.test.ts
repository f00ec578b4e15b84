import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import type { Client } from '@temporalio/client';
import { temporal as proto } from '@temporalio/proto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { installTracing, type Tracing } from '../../src/traces/tracing';
import { bundleWorkflows } from '../../temporal/bundle';
import { connectTemporal } from '../../temporal/client';
import { workerTracing } from '../../temporal/worker';
import { batchWorkflowId, webhookQueueWorkflowId } from '../../workflows/definitions';
import { bearer } from '../devices/helpers';
import { sendingTenant } from '../messages/helpers';
import { startTestApp, type TestApp } from '../support/app';
import { testConfig } from '../support/config';
import { readJson } from '../support/http';
import { createTestWorker, createTimeSkippingEnv, serverClock } from '../support/temporal';
import { startReceiver, type Receiver } from '../webhooks/receiver';

// One send followed through every process part with tracing on, as OTEL_EXPORTER_OTLP_ENDPOINT
// turns it on, but with the spans kept in memory (the composition's test seam) rather than
// exported: the request, its SQL, the workflow start made after the commit, the batch workflow and
// its activity that finds the message stale, the webhook delivery that activity queues, and the
// attempt that reaches a real HTTPS receiver. All of it one trace.

describe('traces: one send from the request to the webhook attempt', () => {
  const exporter = new InMemorySpanExporter();
  let tracing: Tracing;
  let env: TestWorkflowEnvironment;
  let temporal: Client;
  let app: TestApp;
  let worker: Worker;
  let running: Promise<void>;
  let receiver: Receiver;
  let tracedBundle: string;

  beforeAll(async () => {
    tracing = (await installTracing({ serviceName: 'traces-test', spanProcessor: new SimpleSpanProcessor(exporter) }))!;
    env = await createTimeSkippingEnv();
    receiver = await startReceiver();
    const overrides = {
      STALE_WINDOW: '10m',
      TEMPORAL_TASK_QUEUE: 'traces-test',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    };
    // The production client: the tracing interceptors on a connection of its own to the test server.
    temporal = await connectTemporal(testConfig(overrides), env.address, tracing);
    app = await startTestApp({ env: overrides, tracing, temporal });
    tracedBundle = (await bundleWorkflows({ traces: true })).code;
    worker = await createTestWorker(env, {
      config: app.config,
      orm: app.orm,
      clock: serverClock,
      sweeps: [],
      temporal,
      tracing,
      workflowBundle: { code: tracedBundle },
    });
    running = worker.run();
  });

  afterAll(async () => {
    worker?.shutdown();
    await running;
    await app?.close();
    await temporal?.connection.close();
    await receiver?.close();
    await env?.teardown();
    await tracing?.shutdown();
  });

  const spans = () => exporter.getFinishedSpans();
  const named = (name: string, traceId?: string) =>
    spans().filter((s) => s.name === name && (!traceId || s.spanContext().traceId === traceId));
  /**
   * The one span of that name in the trace. A workflow task that is retried (a busy machine) runs
   * its activation again and the sandbox hands out the same span (same id) twice: counted once.
   */
  const one = (name: string, traceId: string): ReadableSpan => {
    const found = named(name, traceId);
    expect(new Set(found.map((s) => s.spanContext().spanId)), name).toHaveProperty('size', 1);
    return found[0];
  };
  const byId = (id: string | undefined) => spans().find((s) => s.spanContext().spanId === id);
  /** Span names from this one up to the root of its trace. */
  const ancestry = (span: ReadableSpan): string[] => {
    const names: string[] = [];
    for (let at: ReadableSpan | undefined = span; at; at = byId(at.parentSpanId)) names.push(at.name);
    return names;
  };

  it('joins the request, its SQL, the workflow starts, the workflows and the attempt in one trace', async () => {
    app.clock.set(new Date(await env.currentTimeMs()));
    const { call, phone } = await sendingTenant(app);
    const hook = await call('POST', '/v1/webhooks', { url: receiver.url, events: ['message.unknown'] });
    expect(hook.status).toBe(201);

    const res = await call('POST', '/v1/messages', { body: 'Traced', to: ['+14155550107'] });
    expect(res.status).toBe(202);
    const { batch, message_ids } = await readJson(res);
    // The phone takes it and never reports: after the stale window the batch workflow's sweep marks
    // it unknown, which queues the webhook delivery.
    const outbox = await app.fetch('/v1/device/outbox', { headers: bearer(phone.token) });
    expect((await readJson(outbox)).data).toHaveLength(1);
    // The batch workflow's start delay is counted from the app's clock, which stands still while the
    // server skips: its start is made first (as startWorkflowStack's env.sleep does).
    await app.services.background.idle();
    await env.sleep('11 minutes');
    await expect.poll(() => receiver.requests.map((r) => r.event)).toEqual(['message.unknown']);
    expect(JSON.parse(receiver.requests[0].raw).data.id).toBe(message_ids[0]);
    // Workflow spans leave the sandbox when their workflow task completes; the batch's run ends after
    // its sweep, the queue's pass (an activity) after the attempt (its run goes on, waiting for more).
    await expect.poll(() => named('RunActivity:drainWebhookQueue').length).toBeGreaterThan(0);
    await expect.poll(() => named('RunWorkflow:batchWorkflow').length).toBeGreaterThan(0);

    // The request: a server span named by its route template, with the status the client got.
    const request = named('POST /v1/messages');
    expect(request).toHaveLength(1);
    const [http] = request;
    const traceId = http.spanContext().traceId;
    expect(http.kind).toBe(SpanKind.SERVER);
    expect(http.parentSpanId).toBeUndefined();
    expect(http.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/v1/messages',
      'url.path': '/v1/messages',
      'http.response.status_code': 202,
    });
    expect(http.resource.attributes['service.name']).toBe('traces-test');

    // Its SQL: client spans, children of the request, the statement with placeholders and no values.
    // (No SELECT api_keys: the process remembers the key from the webhook's creation.)
    const sql = spans().filter((s) => s.parentSpanId === http.spanContext().spanId && s.attributes['db.system']);
    expect(sql.map((s) => s.name)).toEqual(
      // A common send is one statement after the phone's lookup: admission, queue places, batch, messages.
      expect.arrayContaining([
        'SELECT devices',
        'WITH INSERT account_usage, UPDATE devices, INSERT batches, INSERT messages',
      ]),
    );
    for (const span of sql) {
      expect(span.kind).toBe(SpanKind.CLIENT);
      expect(String(span.attributes['db.statement'])).not.toContain('4155550107');
      expect(String(span.attributes['db.statement'])).not.toContain('Traced');
    }

    // The chain, each span the child of the one before it, all in the request's trace: the attempt
    // continues the trace that queued its delivery (kept on the row), whichever pass made it.
    const attempt = one('WebhookAttempt', traceId);
    expect(ancestry(attempt)).toEqual([
      'WebhookAttempt',
      'RunActivity:sweepBatch',
      'StartActivity:sweepBatch',
      'RunWorkflow:batchWorkflow',
      'StartWorkflow:batchWorkflow',
      'POST /v1/messages',
    ]);
    expect(attempt.kind).toBe(SpanKind.CLIENT);
    const deliveries = await readJson(await call('GET', '/v1/webhooks/deliveries'));
    const [delivery] = deliveries.data;
    expect(attempt.attributes).toMatchObject({
      'webhook.delivery_id': delivery.id,
      'webhook.event': 'message.unknown',
      'webhook.attempt': 1,
      'http.response.status_code': 200,
    });
    expect(one('StartWorkflow:batchWorkflow', traceId).attributes).toMatchObject({
      temporalWorkflowId: batchWorkflowId(batch.id),
    });
    // The webhook's queue was started by this delivery's signal, in this trace; the pass that made the
    // attempt (linked from it) writes the attempt's record in its own span.
    const signal = one('SignalWithStartWorkflow:webhookQueueWorkflow', traceId);
    expect(signal.attributes.temporalWorkflowId).toBe(webhookQueueWorkflowId(delivery.webhook_id));
    const pass = spans().find((s) => s.spanContext().spanId === attempt.links[0]?.context.spanId);
    expect(pass?.name).toBe('RunActivity:drainWebhookQueue');
    const passSql = spans().filter((s) => s.parentSpanId === pass!.spanContext().spanId);
    expect(passSql.map((s) => s.name)).toEqual(expect.arrayContaining([expect.stringMatching(/^INSERT /)]));
    // The phone's outbox fetch is a request of its own, in a trace of its own.
    const fetch = named('GET /v1/device/outbox');
    expect(fetch).toHaveLength(1);
    expect(fetch[0].spanContext().traceId).not.toBe(traceId);
  });

  it('replays the traced histories on the bundle without tracing (turning traces off breaks no workflow)', async () => {
    const ids = spans()
      .filter((s) => s.name.startsWith('StartWorkflow:') || s.name.startsWith('SignalWithStartWorkflow:'))
      .map((s) => String(s.attributes.temporalWorkflowId));
    expect(ids.length).toBeGreaterThanOrEqual(2);
    for (const workflowId of ids) {
      const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
      await Worker.runReplayHistory(
        { workflowBundle: { codePath: inject('workflowBundlePath') } },
        history,
        workflowId,
      );
    }
  });

  it('replays histories recorded without tracing on the traced bundle (turning traces on breaks no workflow)', async () => {
    // A worker on the shared bundle without tracing, on a queue of its own: two reconciler passes
    // (timers, activities), then continue-as-new.
    const config = testConfig({ TEMPORAL_TASK_QUEUE: 'traces-untraced' });
    const untraced = await createTestWorker(env, { config, orm: app.orm, sweeps: [] });
    const workflowId = `reconciler-traces-${randomUUID()}`;
    const history = await untraced.runUntil(async () => {
      const handle = await env.client.workflow.start('reconcilerWorkflow', {
        workflowId,
        taskQueue: config.temporal.taskQueue,
        args: [{ intervalMs: 10, passesPerRun: 2 }],
      });
      const run = env.client.workflow.getHandle(workflowId, handle.firstExecutionRunId);
      await expect.poll(async () => (await run.describe()).status.name).toBe('CONTINUED_AS_NEW');
      return run.fetchHistory();
    });
    // Ended once its worker has stopped: while it runs, the chain moves on to a next run every few
    // milliseconds, and a terminate that meets a run as it closes finds it completed.
    await env.client.workflow.getHandle(workflowId).terminate();
    expect(history.events?.some((event) => event.activityTaskCompletedEventAttributes)).toBe(true);
    const { sinks } = await workerTracing(tracing);
    await Worker.runReplayHistory({ workflowBundle: { code: tracedBundle }, sinks }, history, workflowId);
  });

  it('replays a batch settled by signal-with-start, recorded without tracing, on the traced bundle', async () => {
    // Its one task ended it on the settled signal without a sweep: the tracing interceptor around the
    // signal's handler must not change when the workflow sees it.
    const file = path.join(__dirname, '..', 'workflows', 'histories', 'batch-settled.bin');
    const history = proto.api.history.v1.History.decode(readFileSync(file));
    const { sinks } = await workerTracing(tracing);
    await Worker.runReplayHistory({ workflowBundle: { code: tracedBundle }, sinks }, history, 'batch-settled');
  });
});
