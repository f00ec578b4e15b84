import type { MikroORM } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openOrm } from '../../src/db/orm';
import { testConfig } from '../support/config';
import { dumpSchema } from '../support/schema-dump';

// src/db/schema.sql is the schema in one place (tables, indexes, the notify triggers in their last
// definition): a migration that changes it without the file changing fails here.
describe('src/db/schema.sql', () => {
  let orm: MikroORM;
  beforeAll(async () => {
    orm = await openOrm(testConfig().databaseUrl!);
  });
  afterAll(() => orm?.close());

  it('is the schema the migrations build', async () => {
    await expect(await dumpSchema(orm.em.fork())).toMatchFileSnapshot('../../src/db/schema.sql');
  });

  it('reads every table, index and trigger of the catalogue', async () => {
    const text = await dumpSchema(orm.em.fork());
    expect(text).toMatch(/^create table messages \(/m);
    expect(text).toMatch(/^CREATE INDEX messages_inbox_idx /m);
    expect(text).toMatch(/^CREATE TRIGGER \w+ AFTER .* ON messages /m);
    expect(text).not.toContain('mikro_orm_migrations');
  });
});
