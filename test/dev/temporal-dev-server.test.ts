import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { afterAll, describe, expect, it } from 'vitest';
import { startTemporalDevServer } from '../../src/dev/temporal-dev-server';
import { createLogger } from '../../src/lib/logger';
import { freePort } from '../support/net';
import { testConfig } from '../support/config';

describe('the Temporal dev server of npm start', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'dev-server-'));
  let taken: Server | undefined;
  afterAll(() => {
    taken?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('says why it could not start, in the words of the CLI', async () => {
    // Its Web UI's port held by someone else: the CLI refuses to start and says so.
    const uiPort = await freePort();
    taken = createServer();
    await new Promise<void>((resolve) => taken!.listen(uiPort, '127.0.0.1', resolve));
    const config = testConfig({
      DATA_DIR: dataDir,
      TEMPORAL_DEV_PORT: String(await freePort()),
      TEMPORAL_UI_PORT: String(uiPort),
    });
    await expect(startTemporalDevServer(config, createLogger('silent'))).rejects.toThrow(
      new RegExp(`exited with code 1; it said: .*${uiPort}.*address already in use`),
    );
  }, 90_000);

  it('knows a search attribute added while it runs at once: a workflow starts with it and is found by it', async () => {
    const config = testConfig({
      DATA_DIR: mkdtempSync(path.join(tmpdir(), 'dev-server-')),
      TEMPORAL_DEV_PORT: String(await freePort()),
      TEMPORAL_UI_PORT: String(await freePort()),
    });
    const server = await startTemporalDevServer(config, createLogger('silent'));
    const connection = await Connection.connect({ address: server.address });
    try {
      const { namespace } = config.temporal;
      const client = new Client({ connection, namespace });
      const added = defineSearchAttributeKey('ProbeAdded', SearchAttributeType.KEYWORD);
      const never = defineSearchAttributeKey('ProbeNeverAdded', SearchAttributeType.KEYWORD);
      const start = (workflowId: string, key: typeof added) =>
        client.workflow.start('probe', {
          taskQueue: 'probe',
          workflowId,
          typedSearchAttributes: [{ key, value: workflowId }],
        });
      // Refused for the attribute it does not know (the reason is the gRPC error under the SDK's).
      const refusal = await start('before', never).then(
        () => undefined,
        (error: Error) => error,
      );
      expect(String((refusal?.cause as Error | undefined)?.message)).toMatch(/ProbeNeverAdded/);

      await connection.operatorService.addSearchAttributes({
        namespace,
        searchAttributes: { ProbeAdded: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD },
      });
      await start('after', added);
      await expect
        .poll(async () => (await client.workflow.count(`ProbeAdded = 'after'`)).count, { timeout: 20_000 })
        .toBe(1);
    } finally {
      await connection.close();
      await server.stop();
      rmSync(config.dataDir, { recursive: true, force: true });
    }
  }, 90_000);
});
