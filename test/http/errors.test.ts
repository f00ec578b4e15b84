import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Koa from 'koa';
import Router from '@koa/router';
import { bodyParser } from '@koa/bodyparser';
import * as yup from 'yup';
import { errorHandler } from '../../src/http/error-handler';
import { validate } from '../../src/http/validate';
import { startTestApp, type TestApp } from '../support/app';
import { readJson, serve, type Served } from '../support/http';

describe('error bodies of the whole app', () => {
  let api: TestApp;

  beforeAll(async () => {
    api = await startTestApp({ env: { BODY_LIMIT: '1kb' } });
  });
  afterAll(() => api?.close());

  it('answers malformed JSON with 400 bad_request', async () => {
    const res = await api.fetch('/v1/messages', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"to": [',
    });
    expect(res.status).toBe(400);
    expect(await readJson(res)).toEqual({ code: 'bad_request', message: expect.any(String), status: 400 });
  });

  it('answers an unknown path with 404 not_found', async () => {
    const res = await api.fetch('/v1/nothing-here');
    expect(res.status).toBe(404);
    expect(await readJson(res)).toEqual({ code: 'not_found', message: expect.any(String), status: 404 });
  });

  it('answers a body over the limit with 413 payload_too_large', async () => {
    const res = await api.fetch('/v1/messages', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ body: 'x'.repeat(5000) }),
    });
    expect(res.status).toBe(413);
    expect(await readJson(res)).toMatchObject({ code: 'payload_too_large', status: 413 });
  });

  it('echoes a well-formed request id and makes one up otherwise', async () => {
    const kept = await api.fetch('/healthz', { headers: { 'x-request-id': 'abc-123' } });
    expect(kept.headers.get('x-request-id')).toBe('abc-123');
    const made = await api.fetch('/healthz', { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('validation and unexpected errors', () => {
  let api: Served;
  const schema = yup.object({
    body: yup.string().required(),
    to: yup
      .array(
        yup
          .string()
          .required()
          .matches(/^\+\d+$/, 'must be a phone number'),
      )
      .required()
      .min(1),
  });

  beforeAll(async () => {
    const router = new Router();
    router.post('/send', async (ctx) => {
      const { body } = await validate(ctx, { body: schema });
      ctx.body = { recipients: body.to.length };
    });
    router.get('/boom', () => {
      throw new Error('database password is hunter2');
    });
    const app = new Koa();
    app.silent = true;
    app
      .use(errorHandler())
      .use(bodyParser({ enableTypes: ['json'] }))
      .use(router.routes());
    api = await serve(app);
  });
  afterAll(() => api?.close());

  it('lists every invalid field as body.<path>', async () => {
    const res = await api.fetch('/send', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ to: ['+1555', 'nope'] }),
    });
    expect(res.status).toBe(422);
    const body = (await readJson(res)) as { errors: unknown[] };
    expect(body).toMatchObject({ code: 'validation_failed', status: 422 });
    expect(body.errors).toEqual(
      expect.arrayContaining([
        { field: 'body.body', message: expect.any(String) },
        { field: 'body.to[1]', message: 'must be a phone number' },
      ]),
    );
    expect(body.errors).toHaveLength(2);
  });

  it('passes typed, valid input through', async () => {
    const res = await api.fetch('/send', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ body: 'hi', to: ['+1555'] }),
    });
    expect(res.status).toBe(200);
    expect(await readJson(res)).toEqual({ recipients: 1 });
  });

  it('hides the details of an unexpected error behind 500 internal', async () => {
    const res = await api.fetch('/boom');
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({ code: 'internal', message: expect.any(String), status: 500 });
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain('at ');
  });
});
