// `npm run bench:workflow-floor`: what a workflow costs the Temporal server at the least, beside what
// a batch's workflow costs it, on the dev server as `npm start` runs it (its flags: src/dev/
// temporal-dev-server.ts) or with --server=cluster on the production shape of `npm run cluster` (two
// Temporal servers on Postgres, src/dev/cluster.ts). The worker and the client run in this process,
// alone: its CPU is theirs.
//
// Shapes, each N workflows (16 at a time) per round, 3 rounds, counted until the server is quiet:
//   floor            start; one workflow task that returns; completion
//   floor, delayed   start with a start delay, then a signal-with-start that ends it; the same task
//   ..., attributes  the same with a batch's search attributes (what the visibility store adds)
//   batch            a batch settled before its first deadline: batchWorkflow started as
//                    src/messages/batch-starts.ts starts it (delay, search attributes), then the
//                    settled signal by signal-with-start (as outcomes.service.ts sends it)
// For each: CPU per workflow of the server and of this process (p50 and p95 of the rounds), history
// events and workflow tasks per workflow.
//
//   npm run bench:workflow-floor [-- --workflows=N] [--server=dev|cluster]
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { bundleWorkflowCode, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { loadConfig, temporalCacheDir } from '../src/config';
import { createLogger } from '../src/lib/logger';
import { startTemporalDevServer } from '../src/dev/temporal-dev-server';
import { idempotentStart } from '../temporal/client';
import { batchSettledSignal, batchWorkflowId, type BatchInput } from '../workflows/definitions';
import { batchSearchAttributes } from '../workflows/search-attributes';
import { freePort, freePortRun } from '../test/support/net';
import {
  nodePorts,
  portsForNodes,
  postgresAccess,
  registerNamespace,
  setupTemporalSchema,
  startTemporalNode,
  temporalServerBinaries,
} from '../src/dev/temporal-cluster';
import { cpuBetween, snapshot, type Component } from './proc';
import { onCleanup, runMain, startPostgres, tempDir } from './stack';
import { percentile } from './stats';

const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const WORKFLOWS = Number(arg('workflows') ?? 300);
const SERVER = (arg('server') ?? 'dev') as 'dev' | 'cluster';
// The servers' own warnings (ownership moves as the second joins) would drown the output.
const logger = createLogger('error');
const ROUNDS = 3;
const PARALLEL = 16;
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Server {
  address: string;
  components: Component[];
}

async function startDev(): Promise<Server> {
  const dir = tempDir('bench-floor-');
  const config = loadConfig({
    DATA_DIR: dir,
    TEMPORAL_DEV_PORT: String(await freePort()),
    TEMPORAL_UI_PORT: String(await freePort()),
  });
  const server = await startTemporalDevServer(config, logger);
  onCleanup('stop the dev server', () => server.stop());
  const pid = server.pid;
  if (!pid) throw new Error('the dev server runs without a process of its own (no Go to build the CLI)');
  return { address: server.address, components: [{ name: 'temporal', root: () => pid }] };
}

/** Two Temporal servers on one Postgres, as `npm run cluster` runs them; the client talks to the first. */
async function startClusterServers(): Promise<Server> {
  const postgres = await startPostgres({ errors: [] }, ['max_connections=300']);
  const binaries = temporalServerBinaries(temporalCacheDir());
  const access = postgresAccess(postgres.url);
  await setupTemporalSchema(binaries.sqlTool, binaries.schema, access, logger);
  const components: Component[] = [postgres.component];
  const first = await freePortRun(portsForNodes(2));
  let address = '';
  for (const [i, ports] of nodePorts(first, 2).entries()) {
    const name = `temporal-${i + 1}`;
    const node = await startTemporalNode({ name, server: binaries.server, ...ports, postgres: access, logger });
    onCleanup(`stop ${name}`, () => node.stop());
    components.push({ name, root: () => node.pid });
    address ||= node.address;
  }
  await registerNamespace(address, 'default', logger);
  return { address, components };
}

const self: Component = { name: 'client+worker', root: () => process.pid, alone: true };

/** Until a second passes in which the server spends at most its idle CPU and 10 ms. */
async function quiet(components: Component[], idlePerSecond: number): Promise<void> {
  for (let i = 0; i < 60; i++) {
    const before = snapshot(components);
    await delay(1000);
    if (cpuBetween(before, snapshot(components)).total <= idlePerSecond + 10) return;
  }
}

runMain(async () => {
  Runtime.install({ logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error: console.error } });
  const server = SERVER === 'cluster' ? await startClusterServers() : await startDev();
  const connection = await Connection.connect({ address: server.address });
  onCleanup('close the client', () => connection.close());
  const client = new Client({ connection, namespace: 'default' });
  const nativeConnection = await NativeConnection.connect({ address: server.address });
  onCleanup('close the worker connection', () => nativeConnection.close());
  const bundle = await bundleWorkflowCode({
    workflowsPath: path.join(__dirname, 'floor-workflows.ts'),
    logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error: console.error },
  });
  const taskQueue = `floor-${randomUUID()}`;
  let activityCalls = 0;
  const refuse = async () => {
    activityCalls++;
    throw new Error('a settled batch runs no activity');
  };
  const worker = await Worker.create({
    connection: nativeConnection,
    namespace: 'default',
    taskQueue,
    workflowBundle: { code: bundle.code },
    activities: { releaseBatch: refuse, sweepBatch: refuse, wakeBatchDevice: refuse },
  });
  const running = worker.run();
  onCleanup('stop the worker', async () => {
    worker.shutdown();
    await running;
  });

  const userId = randomUUID();
  const deviceId = randomUUID();
  const shapes: Record<string, (id: string) => Promise<void>> = {
    floor: async (id) => {
      await client.workflow.start('floorWorkflow', { workflowId: id, taskQueue, ...idempotentStart });
    },
    'floor, delayed': async (id) => {
      await client.workflow.start('floorWorkflow', { workflowId: id, taskQueue, startDelay: '1h', ...idempotentStart });
      await client.workflow.signalWithStart('floorWorkflow', {
        workflowId: id,
        taskQueue,
        ...idempotentStart,
        signal: 'settled',
      });
    },
    // The same with the batch's search attributes: what the visibility store adds.
    'floor, delayed, attributes': async (id) => {
      const attributes = batchSearchAttributes({ userId, deviceId, scheduled: false });
      await client.workflow.start('floorWorkflow', {
        workflowId: id,
        taskQueue,
        startDelay: '1h',
        ...idempotentStart,
        typedSearchAttributes: attributes,
      });
      await client.workflow.signalWithStart('floorWorkflow', {
        workflowId: id,
        taskQueue,
        ...idempotentStart,
        typedSearchAttributes: attributes,
        signal: 'settled',
      });
    },
    batch: async (id) => {
      const common = {
        workflowId: batchWorkflowId(id),
        taskQueue,
        args: [{ batchId: id, scheduledAt: null, delayedStart: true }] as [BatchInput],
        ...idempotentStart,
        typedSearchAttributes: batchSearchAttributes({ userId, deviceId, scheduled: false }),
      };
      await client.workflow.start('batchWorkflow', { ...common, startDelay: '1h' });
      await client.workflow.signalWithStart('batchWorkflow', { ...common, signal: batchSettledSignal });
    },
  };

  await delay(5000);
  const idleBefore = snapshot(server.components);
  await delay(5000);
  const idle = cpuBetween(idleBefore, snapshot(server.components)).total / 5;
  const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  console.log(
    `bench:workflow-floor at ${commit} on the ${SERVER} server, ${WORKFLOWS} workflows a round; server idle ${idle.toFixed(1)} ms/s`,
  );

  const components = [...server.components, self];
  const results: Record<string, { server: number[]; local: number[]; ids: string[] }> = {};
  for (let round = 0; round < ROUNDS; round++)
    for (const name of Object.keys(shapes)) {
      const ids = Array.from({ length: WORKFLOWS }, () => randomUUID());
      const before = snapshot(components);
      const started = performance.now();
      let next = 0;
      await Promise.all(
        Array.from({ length: PARALLEL }, async () => {
          while (next < ids.length) await shapes[name](ids[next++]);
        }),
      );
      await quiet(server.components, idle);
      const spent = cpuBetween(before, snapshot(components));
      const seconds = (performance.now() - started) / 1000;
      const serverMs = Math.max(0, spent.total - spent['client+worker'] - idle * seconds);
      (results[name] ??= { server: [], local: [], ids: [] }).server.push(serverMs / WORKFLOWS);
      results[name].local.push(spent['client+worker'] / WORKFLOWS);
      results[name].ids.push(...ids);
      console.log(
        `${name}: server ${(serverMs / WORKFLOWS).toFixed(2)} ms, client+worker ${(spent['client+worker'] / WORKFLOWS).toFixed(2)} ms per workflow`,
      );
    }

  // Every one closed, and what each cost in history (the last of each shape's ids).
  console.log(
    '\n| shape | server CPU per workflow p50 / p95 | client+worker p50 / p95 | history events | workflow tasks |',
  );
  console.log('|---|---|---|---|---|');
  for (const [name, r] of Object.entries(results)) {
    const id = name === 'batch' ? batchWorkflowId(r.ids.at(-1)!) : r.ids.at(-1)!;
    const handle = client.workflow.getHandle(id);
    await handle.result();
    const events = (await handle.fetchHistory()).events ?? [];
    const tasks = events.filter(
      (e) => e.eventType === temporal.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED,
    ).length;
    const ms = (values: number[]) =>
      `${percentile(values, 0.5).toFixed(2)} / ${percentile(values, 0.95).toFixed(2)} ms`;
    console.log(`| ${name} | ${ms(r.server)} | ${ms(r.local)} | ${events.length} | ${tasks} |`);
  }
  if (activityCalls > 0) throw new Error(`a settled batch ran ${activityCalls} activities`);
});
