import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app';
import { createKey, json, registerAccount } from '../support/accounts';
import { isErrorBody, readJson } from '../support/http';

// /v1/templates: an account's saved message texts, listed with the one pagination, another
// account's as absent as one that never existed, bad input refused whole with the interface's error.
describe('saved message templates: /v1/templates', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(async () => {
    await app?.close();
  });

  async function tenant() {
    const account = await registerAccount(app, { verified: true });
    const key = await createKey(app, account);
    return (method: string, path: string, body?: unknown) => app.fetch(path, json(method, body, { 'x-api-key': key }));
  }
  type Call = Awaited<ReturnType<typeof tenant>>;
  const names = async (call: Call, query = '') =>
    (await readJson(await call('GET', `/v1/templates${query}`))).data.map((t: { name: string }) => t.name);

  it('saves, lists newest first, reads, renames, rewrites and deletes a template, naming its fields', async () => {
    const call = await tenant();
    const made = await call('POST', '/v1/templates', {
      name: ' Table ready ',
      body: 'Hi {name}, table {Table} is ready',
    });
    expect(made.status).toBe(201);
    const { template } = await readJson(made);
    expect(template).toEqual({
      id: expect.any(String),
      name: 'Table ready',
      body: 'Hi {name}, table {Table} is ready',
      fields: ['name', 'Table'],
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect((await call('POST', '/v1/templates', { name: 'Reminder', body: 'See you at {time}' })).status).toBe(201);
    expect((await names(call)).sort()).toEqual(['Reminder', 'Table ready']);

    const read = await readJson(await call('GET', `/v1/templates/${template.id}`));
    expect(read.template).toEqual(template);

    const renamed = await call('PATCH', `/v1/templates/${template.id}`, { name: 'Ready' });
    expect(renamed.status).toBe(200);
    expect((await readJson(renamed)).template).toMatchObject({ name: 'Ready', body: template.body });
    const rewritten = await readJson(await call('PATCH', `/v1/templates/${template.id}`, { body: 'Hi {name}' }));
    expect(rewritten.template).toMatchObject({ name: 'Ready', body: 'Hi {name}', fields: ['name'] });

    expect((await call('DELETE', `/v1/templates/${template.id}`)).status).toBe(204);
    expect((await call('GET', `/v1/templates/${template.id}`)).status).toBe(404);
    expect(await names(call)).toEqual(['Reminder']);
  });

  it('pages the list with next_cursor, as every list does', async () => {
    const call = await tenant();
    for (const name of ['One', 'Two', 'Three']) await call('POST', '/v1/templates', { name, body: name });
    const first = await readJson(await call('GET', '/v1/templates?limit=2'));
    expect(first.data).toHaveLength(2);
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = await readJson(await call('GET', `/v1/templates?limit=2&cursor=${first.next_cursor}`));
    expect(second.data).toHaveLength(1);
    expect(second.next_cursor).toBeUndefined();
    const seen = [...first.data, ...second.data].map((t: { name: string }) => t.name);
    expect(seen.sort()).toEqual(['One', 'Three', 'Two']);
  });

  it('answers another account’s template as not found, for reading, changing and deleting alike', async () => {
    const owner = await tenant();
    const other = await tenant();
    const { template } = await readJson(await owner('POST', '/v1/templates', { name: 'Mine', body: 'Hello {name}' }));
    for (const [method, body] of [['GET'], ['PATCH', { name: 'Theirs' }], ['DELETE']] as const) {
      const res = await other(method, `/v1/templates/${template.id}`, body);
      expect(res.status, method).toBe(404);
      expect(isErrorBody(await readJson(res), 404)).toBe(true);
    }
    expect(await names(other)).toEqual([]);
    expect((await readJson(await owner('GET', `/v1/templates/${template.id}`))).template).toEqual(template);
  });

  it('refuses bad input with the interface’s error body and writes nothing', async () => {
    const call = await tenant();
    const refusals: Array<[string, string, unknown, number, string]> = [
      ['POST', '/v1/templates', { name: '', body: 'Hi' }, 422, 'body.name'],
      ['POST', '/v1/templates', { name: 'No body' }, 422, 'body.body'],
      ['POST', '/v1/templates', { name: 'Long', body: 'x'.repeat(1601) }, 422, 'body.body'],
      ['POST', '/v1/templates', { name: 7, body: 'Hi' }, 422, 'body.name'],
    ];
    for (const [method, path, body, status, field] of refusals) {
      const res = await call(method, path, body);
      const answer = await readJson(res);
      expect([res.status, isErrorBody(answer, status)], JSON.stringify(body)).toEqual([status, true]);
      expect(answer.errors.map((e: { field: string }) => e.field)).toContain(field);
    }
    expect(await names(call)).toEqual([]);

    const { template } = await readJson(await call('POST', '/v1/templates', { name: 'Kept', body: 'Hi {name}' }));
    const empty = await call('PATCH', `/v1/templates/${template.id}`, {});
    expect([empty.status, isErrorBody(await readJson(empty), 422)]).toEqual([422, true]);
    // A rename to a name the account uses already is a conflict, and the template keeps its own.
    await call('POST', '/v1/templates', { name: 'Taken', body: 'Other' });
    const clash = await call('PATCH', `/v1/templates/${template.id}`, { name: 'Taken', body: 'Changed' });
    const answer = await readJson(clash);
    expect([clash.status, answer.code, isErrorBody(answer, 409)]).toEqual([409, 'name_taken', true]);
    expect((await readJson(await call('GET', `/v1/templates/${template.id}`))).template).toMatchObject({
      name: 'Kept',
      body: 'Hi {name}',
    });
  });
});
