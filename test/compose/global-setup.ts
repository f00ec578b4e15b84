import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { createTestTls } from '../support/tls';

// The compose test needs only the test CA (its webhook receiver's certificate, trusted inside the
// containers): none of the main suite's Postgres, build or workflow bundle.
const scratch = path.resolve(__dirname, '..', '..', '.test-data');

export async function setup(project: {
  provide(key: 'testTls', value: Awaited<ReturnType<typeof createTestTls>>): void;
}) {
  mkdirSync(scratch, { recursive: true });
  project.provide('testTls', await createTestTls(scratch));
}

export function teardown(): void {
  rmSync(path.join(scratch, `test-ca-${process.pid}.pem`), { force: true });
}
