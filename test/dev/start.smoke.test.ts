import { execFileSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Connection, Client } from '@temporalio/client';
import { readJson } from '../support/http';
import { exited, freeStartPorts, spawnStart, waitFor, type StartPorts } from '../support/start-command';

const root = path.resolve(__dirname, '..', '..');
const dataDir = path.join(root, '.test-data', `start-smoke-${process.pid}`);

/** Processes whose command line mentions our data folder: the embedded Postgres and the dev server. */
function processesUsing(dir: string): string[] {
  const out = execFileSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' });
  return out.split('\n').filter((line) => line.includes(dir) && !line.includes('ps -eo'));
}

describe('npm start (embedded Postgres + Temporal dev server + api + worker)', () => {
  const children: ChildProcess[] = [];
  afterAll(() => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function start(ports: StartPorts) {
    const started = spawnStart({ dataDir, ports });
    children.push(started.child);
    return started;
  }

  it('comes up ready with the Temporal UI, stops cleanly on SIGTERM, and resumes its workflows after a restart', async () => {
    mkdirSync(dataDir, { recursive: true });
    const ports = await freeStartPorts();

    const first = await start(ports);
    const ready = await waitFor(`http://127.0.0.1:${ports.api}/readyz`, first.child, 120_000).catch((error) => {
      throw new Error(`${error.message}\n${first.output()}`);
    });
    expect(await readJson(ready)).toEqual({ status: 'ok', checks: { postgres: 'ok', temporal: 'ok' } });
    const ui = await waitFor(`http://127.0.0.1:${ports.ui}/`, first.child, 30_000);
    expect(await ui.text()).toMatch(/<html/i);
    expect(first.output()).toContain(`Temporal UI  http://127.0.0.1:${ports.ui}`);
    // The API's and the worker's counters in one registry, on the metrics port (9464 unless told).
    expect(first.output()).toContain(`Metrics      http://127.0.0.1:${ports.metrics}/metrics`);
    const metrics = await fetch(`http://127.0.0.1:${ports.metrics}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toMatch(
      /^phone_gateway_http_requests_total\{method="GET",route="\/readyz",status="200"\} \d+$/m,
    );

    const connection = await Connection.connect({ address: `127.0.0.1:${ports.temporal}` });
    const before = await new Client({ connection }).workflow.getHandle('reconciler').describe();
    await connection.close();
    expect(before.status.name).toBe('RUNNING');

    expect(processesUsing(dataDir).length).toBeGreaterThanOrEqual(2);
    first.child.kill('SIGTERM');
    expect(await exited(first.child)).toBe(0);
    expect(processesUsing(dataDir)).toEqual([]);

    // Same data folder: Postgres keeps its rows and the dev server its workflows and timers.
    const second = await start(ports);
    await waitFor(`http://127.0.0.1:${ports.api}/readyz`, second.child, 120_000);
    const again = await Connection.connect({ address: `127.0.0.1:${ports.temporal}` });
    const after = await new Client({ connection: again }).workflow.getHandle('reconciler').describe();
    await again.close();
    expect(after.runId).toBe(before.runId);
    expect(after.status.name).toBe('RUNNING');
    second.child.kill('SIGINT');
    expect(await exited(second.child)).toBe(0);
    expect(processesUsing(dataDir)).toEqual([]);
  }, 300_000);
});
