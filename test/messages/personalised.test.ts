import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { startTestApp, type TestApp } from '../support/app';
import { isErrorBody, readJson } from '../support/http';
import { fetchOutbox } from '../devices/helpers';
import { sendingTenant } from './helpers';

// POST /v1/messages with `variables`: body is a template filled per recipient, still one batch. No
// workflow runs here (the phone takes its texts from the outbox).
describe('a personalised send: POST /v1/messages with variables', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({
      temporal: new Client({ connection: Connection.lazy({ address: '127.0.0.1:1', connectTimeout: 100 }) }),
    });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('gives each recipient its own text in one batch, counting segments on the longest', async () => {
    const { call, phone } = await sendingTenant(app);
    const long = 'Maximilian-Alexander '.repeat(8).trim();
    const res = await call('POST', '/v1/messages', {
      body: 'Hi {name}, your table {Table} is ready',
      to: ['+14155550401', '+14155550402', '+1 415 555 0401'],
      variables: [
        { Name: 'Ann', table: '4' },
        { name: long, table: '12' },
        { name: 'Repeat', table: '9' },
      ],
    });
    expect(res.status).toBe(202);
    const { batch, message_ids } = await readJson(res);
    expect(message_ids).toHaveLength(2);
    expect(batch).toMatchObject({ body: 'Hi {name}, your table {Table} is ready', recipient_count: 2, segments: 2 });
    const detail = await readJson(await call('GET', `/v1/batches/${batch.id}`));
    expect(detail.messages.map((m: Record<string, unknown>) => [m.recipient, m.body, m.segments])).toEqual([
      ['+14155550401', 'Hi Ann, your table 4 is ready', 1],
      ['+14155550402', `Hi ${long}, your table 12 is ready`, 2],
    ]);
    const outbox = (await fetchOutbox(app, phone)) as unknown as Array<{ to: string; body: string }>;
    expect(outbox.map((m) => [m.to, m.body])).toEqual([
      ['+14155550401', 'Hi Ann, your table 4 is ready'],
      ['+14155550402', `Hi ${long}, your table 12 is ready`],
    ]);
  });

  it('leaves a send without variables as it was: braces are text', async () => {
    const { call } = await sendingTenant(app);
    const { batch } = await readJson(await call('POST', '/v1/messages', { body: 'Hi {name}', to: ['+14155550403'] }));
    const detail = await readJson(await call('GET', `/v1/batches/${batch.id}`));
    expect(detail.messages.map((m: { body: string }) => m.body)).toEqual(['Hi {name}']);
  });

  it('refuses a recipient without a field the template uses, or variables that do not fit, sending nothing', async () => {
    const { call } = await sendingTenant(app);
    const refusals: Array<[Record<string, unknown>, string]> = [
      [
        { body: 'Hi {name}', to: ['+14155550404', '+14155550405'], variables: [{ name: 'Ann' }, { name: ' ' }] },
        'body.variables[1]',
      ],
      [{ body: 'Hi {name}', to: ['+14155550404'], variables: [{ nom: 'Ann' }] }, 'body.variables[0]'],
      [{ body: 'Hi {name}', to: ['+14155550404', '+14155550405'], variables: [{ name: 'Ann' }] }, 'body.variables'],
      [{ body: 'Hi {name}', to: ['+14155550404'], variables: [{ name: 4 }] }, 'body.variables[0]'],
      [{ body: 'Hi {name}', to: ['+14155550404'], variables: [{ name: 'x'.repeat(1600) }] }, 'body.variables[0]'],
    ];
    for (const [body, field] of refusals) {
      const res = await call('POST', '/v1/messages', body);
      const answer = await readJson(res);
      expect([res.status, isErrorBody(answer, 422)], JSON.stringify(body).slice(0, 120)).toEqual([422, true]);
      expect(answer.errors.map((e: { field: string }) => e.field)).toEqual([field]);
    }
    expect((await readJson(await call('GET', '/v1/batches'))).data).toEqual([]);
  });
  it("is found by each recipient's own words, not by the template's, and a shared text by its words", async () => {
    const { call } = await sendingTenant(app);
    await call('POST', '/v1/messages', {
      body: 'Dear {name}, your parcel is here',
      to: ['+14155550406', '+14155550407'],
      variables: [{ name: 'Ann' }, { name: 'Bob' }],
    });
    app.clock.advance(1000);
    await call('POST', '/v1/messages', { body: 'Your parcel is late', to: ['+14155550408', '+14155550409'] });
    const found = async (q: string) =>
      (await readJson(await call('GET', `/v1/messages?q=${encodeURIComponent(q)}&order=asc`))).data.map(
        (m: { recipient: string; body: string }) => `${m.recipient} ${m.body}`,
      );
    expect(await found('Ann')).toEqual(['+14155550406 Dear Ann, your parcel is here']);
    expect(await found('{name}')).toEqual([]);
    // Oldest send first; within a send, the order is by id.
    const parcel = await found('PARCEL IS');
    expect(parcel.slice(0, 2).sort()).toEqual([
      '+14155550406 Dear Ann, your parcel is here',
      '+14155550407 Dear Bob, your parcel is here',
    ]);
    expect(parcel.slice(2).sort()).toEqual(['+14155550408 Your parcel is late', '+14155550409 Your parcel is late']);
    expect((await found('is late')).sort()).toEqual([
      '+14155550408 Your parcel is late',
      '+14155550409 Your parcel is late',
    ]);
    expect(await found('550409')).toEqual(['+14155550409 Your parcel is late']);
    // Pages of one walk the same texts in the same order, each once.
    const ids = async (path: string) =>
      (await readJson(await call('GET', path))) as { data: Array<{ id: string }>; next_cursor?: string };
    const whole = (await ids('/v1/messages?q=parcel')).data.map((m) => m.id);
    const walked: string[] = [];
    for (let page = await ids('/v1/messages?q=parcel&limit=1'); ;) {
      walked.push(...page.data.map((m) => m.id));
      if (!page.next_cursor) break;
      page = await ids(`/v1/messages?q=parcel&limit=1&cursor=${encodeURIComponent(page.next_cursor)}`);
    }
    expect(whole).toHaveLength(4);
    expect(walked).toEqual(whole);
    // Another account's send of the same text is its own: a search here does not list it.
    const other = await sendingTenant(app);
    await other.call('POST', '/v1/messages', { body: 'Your parcel is late', to: ['+14155550410'] });
    expect(await found('is late')).toHaveLength(2);
  });
});
