import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app';
import { readJson } from '../support/http';

const dir = path.resolve(__dirname, '../../.test-data/openapi-client');

// Typed by the generated schema: these calls compile only if the document describes the endpoints,
// their bodies, query parameters and responses as the client uses them.
const CLIENT = `import createClient from 'openapi-fetch';
import type { paths } from './schema';

const client = createClient<paths>({ baseUrl: 'http://127.0.0.1:1', headers: { 'X-Api-Key': 'sk_example' } });

export async function examples(): Promise<void> {
  const sent = await client.POST('/v1/messages', {
    body: { body: 'Hello', to: ['+15550100', '+15550101'], scheduled_at: null, sim_subscription_id: 1 },
  });
  if (sent.data) {
    const ids: string[] = sent.data.message_ids;
    const recipients: number = sent.data.batch.recipient_count;
    void ids, recipients;
  }
  if (sent.error) {
    const problem: { code: string; status: number; errors?: { field: string; message: string }[] } = sent.error;
    void problem;
  }

  const page = await client.GET('/v1/messages', {
    params: { query: { order: 'asc', from: '2026-01-01T00:00:00Z', direction: 'inbound', limit: 10 } },
  });
  const next: string | undefined = page.data?.next_cursor;
  const sender: string | null | undefined = page.data?.data[0]?.sender;
  void next, sender;

  const found = await client.GET('/v1/devices/{id}', { params: { path: { id: '9b2d1c9e-0000-4000-8000-000000000000' } } });
  const online: boolean | undefined = found.data?.device.online;
  void online;

  // @ts-expect-error \`to\` is a list of recipients, not one string
  await client.POST('/v1/messages', { body: { body: 'Hello', to: '+15550100' } });
}
`;

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'ESNext',
    moduleResolution: 'Bundler',
    lib: ['ES2022', 'DOM'],
    types: [],
    strict: true,
    noEmit: true,
    skipLibCheck: true,
  },
  include: ['*.ts'],
};

/** Type-checks the folder with the TypeScript compiler API: the diagnostics, formatted. */
function typeCheck(): string[] {
  const configPath = path.join(dir, 'tsconfig.json');
  const { config } = ts.readConfigFile(configPath, ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(config, ts.sys, dir);
  const program = ts.createProgram(parsed.fileNames, parsed.options);
  return ts
    .getPreEmitDiagnostics(program)
    .map((d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
}

describe('a client generated from the served document', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true });
  });
  afterAll(() => app?.close());

  it('type-checks calls to the documented endpoints', async () => {
    const { default: openapiTS, astToString } = await import('openapi-typescript');
    const document = await readJson(await app.fetch('/v1/openapi.json'));
    await writeFile(path.join(dir, 'schema.d.ts'), astToString(await openapiTS(document)));
    await writeFile(path.join(dir, 'tsconfig.json'), JSON.stringify(TSCONFIG, null, 2));
    await writeFile(path.join(dir, 'client.ts'), CLIENT);
    expect(typeCheck()).toEqual([]);

    // The check can fail: without the expectation, the wrong body is reported.
    await writeFile(path.join(dir, 'client.ts'), CLIENT.replace(/^\s*\/\/ @ts-expect-error.*$/m, ''));
    const errors = typeCheck();
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain('client.ts');
    await writeFile(path.join(dir, 'client.ts'), CLIENT);
  });
});
