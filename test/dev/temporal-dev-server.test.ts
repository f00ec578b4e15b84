import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
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
});
