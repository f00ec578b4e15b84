// A worker in its own process, so a test can kill it outright (SIGKILL) in the middle of its work.
// Configured by the environment the test passes: DATABASE_URL, TEMPORAL_TASK_QUEUE, TEST_TEMPORAL_ADDRESS,
// TEST_WORKFLOW_BUNDLE.
import { Context } from '@temporalio/activity';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { createActivities } from '../../activities';
import { loadConfig } from '../../src/config';
import { openOrm } from '../../src/db/orm';
import { createLogger } from '../../src/lib/logger';
import { buildServices } from '../../src/services';

async function main() {
  const config = loadConfig();
  const address = process.env.TEST_TEMPORAL_ADDRESS!;
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const orm = await openOrm(config.databaseUrl!);
  const temporal = new Client({ connection: await Connection.connect({ address }) });
  const worker = await Worker.create({
    connection: await NativeConnection.connect({ address }),
    taskQueue: config.temporal.taskQueue,
    workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! },
    // No sticky queue: the time-skipping test server never moves a dead worker's sticky tasks back to
    // the shared queue (a real Temporal server does, after the sticky schedule-to-start timeout).
    maxCachedWorkflows: 0,
    activities: createActivities(
      buildServices({
        config,
        orm,
        temporal,
        logger: createLogger('silent'),
        sweeps: [],
        // The test server's time, as in the in-process workflow tests.
        clock: { now: () => new Date(Context.current().info.currentAttemptScheduledTimestampMs) },
      }),
      orm,
    ),
  });
  process.stdout.write('worker ready\n');
  await worker.run();
}

main().catch((error) => {
  process.stderr.write(`worker child failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
