import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ProvidedContext } from 'vitest';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../src/dev/embedded';
import { migrate, openOrm } from '../../src/db/orm';
import { bundleWorkflows } from '../../temporal/bundle';
import { freePort } from './net';
import { buildStart } from './start-script';
import { createTestTls, type TestTls } from './tls';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
    workflowBundlePath: string;
    /** Server key and certificate signed by the test CA that every test process trusts. */
    testTls: TestTls;
  }
}

const root = path.resolve(__dirname, '..', '..');
const scratch = path.join(root, '.test-data');
let postgres: EmbeddedPostgres | undefined;

/** Real Postgres (TEST_DATABASE_URL, else a throwaway embedded one), migrated once, and one workflow bundle. */
export async function setup(project: {
  provide<K extends keyof ProvidedContext>(key: K, value: ProvidedContext[K]): void;
}): Promise<void> {
  mkdirSync(scratch, { recursive: true });
  let url = process.env.TEST_DATABASE_URL;
  if (!url) {
    const dir = path.join(scratch, `postgres-${process.pid}`);
    rmSync(dir, { recursive: true, force: true });
    postgres = await startEmbeddedPostgres({
      dir,
      port: await freePort(),
      database: 'phone_gateway_test',
      persistent: false,
    });
    url = postgres.url;
  }
  const orm = await openOrm(url);
  try {
    await migrate(orm);
  } finally {
    await orm.close();
  }
  // The tests that run `npm start` run its compiled build, as it is after its prestart.
  buildStart();
  const bundle = await bundleWorkflows();
  const bundlePath = path.join(scratch, `workflow-bundle-${process.pid}.js`);
  writeFileSync(bundlePath, bundle.code);
  project.provide('databaseUrl', url);
  project.provide('workflowBundlePath', bundlePath);
  project.provide('testTls', await createTestTls(scratch));
}

export async function teardown(): Promise<void> {
  await postgres?.stop();
  rmSync(path.join(scratch, `workflow-bundle-${process.pid}.js`), { force: true });
  rmSync(path.join(scratch, `test-ca-${process.pid}.pem`), { force: true });
}
