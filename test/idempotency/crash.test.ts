import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { json } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/app';
import { readJson } from '../support/http';
import { sendingTenant } from '../messages/helpers';

describe('an api process killed between the commit of an idempotent request and its answer', () => {
  let app: TestApp;
  let child: ChildProcess | undefined;

  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(async () => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await app?.close();
  });

  async function startApiProcess(): Promise<{ process: ChildProcess; url: string; exited: Promise<unknown> }> {
    const started = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'api-child.ts')], {
      env: { ...process.env, NODE_ENV: 'test', LOG_LEVEL: 'silent', DATABASE_URL: inject('databaseUrl') },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise((resolve) => started.once('exit', (code, signal) => resolve(signal ?? code)));
    const url = await new Promise<string>((resolve, reject) => {
      started.stdout!.on('data', (chunk: Buffer) => {
        const match = /api ready (\S+)/.exec(chunk.toString());
        if (match) resolve(match[1]);
      });
      started.once('exit', (code) => reject(new Error(`api process exited early (${code})`)));
    });
    return { process: started, url, exited };
  }

  it('never answers, and the retry replays the committed answer without sending again', async () => {
    const tenant = await sendingTenant(app);
    const api = await startApiProcess();
    child = api.process;
    const request = json(
      'POST',
      { body: 'Committed, never answered', to: ['+14155550401', '+14155550402'] },
      { 'x-api-key': tenant.key, 'idempotency-key': 'crash-1' },
    );

    // The process dies after its commit: the client sees the connection drop, no answer.
    await expect(fetch(`${api.url}/v1/messages`, request)).rejects.toThrow();
    expect(await api.exited).toBe('SIGKILL');

    // What it committed: the batch, its messages and the stored answer, together.
    const [batch] = (await readJson(await tenant.call('GET', '/v1/batches'))).data;
    expect(batch).toMatchObject({ recipient_count: 2, status: 'queued' });

    // The client retries (here against another api process): the first answer, nothing sent again.
    const retry = await app.fetch('/v1/messages', request);
    expect(retry.status).toBe(202);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    const answer = await readJson(retry);
    expect(answer.batch.id).toBe(batch.id);
    const detail = await readJson(await tenant.call('GET', `/v1/batches/${batch.id}`));
    expect(answer.message_ids).toEqual(detail.messages.map((m: { id: string }) => m.id));
    expect((await readJson(await tenant.call('GET', '/v1/batches'))).data).toHaveLength(1);
    expect((await readJson(await tenant.call('GET', '/v1/auth/me'))).usage.sent_today).toBe(2);
  });
});
