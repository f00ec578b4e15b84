import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DatabaseSchema, SchemaComparator, type MikroORM } from '@mikro-orm/postgresql';
import { openOrm } from '../../src/db/orm';
import { testConfig } from '../support/config';

// The migrations (hand-written SQL) and the entities must describe the same tables and columns.
// This test checks storage itself, so it reads the migrated test database's catalogue, and diffs it
// with MikroORM's SchemaComparator (the engine of getUpdateSchemaSQL) against the entities' schema.
//
// What is compared: every entity has its table, every entity property its column and every column a
// property (tables below excepted), with the same nullability and the same kind of type. What is not:
// indexes (partial, trigram), foreign keys (entities hold plain ids, not relations), check
// constraints, defaults and text lengths. Those exist in the migrations on purpose and only there:
// the ORM never creates the schema (snapshots are off, migrations are written by hand).

/** Tables written only with SQL from their repository, on purpose without an entity. */
const WITHOUT_ENTITY = [
  'account_usage', // plans.repository: one guarded upsert per send
  'idempotency_keys', // idempotency.repository: stored answers, sealed like secrets
  'rate_limit_windows', // http/rate-limit.repository: fixed-window counters
  'smsgate_devices', // compat/smsgate/mobile.repository: each SMSGate app's sealed signing key
  'smsgate_ids', // compat/smsgate/integrator.repository: ids SMSGate clients chose, and our rows they name
  'smsgate_accounts', // compat/smsgate/integrator.repository: each account's sealed SMSGate signing key
  'mms_messages', // mms/mms.repository: a received MMS's subject
  'mms_attachments', // mms/mms.repository: its parts, their bytes kept within the account's quota
];

/** The kind of a column type, so that `text` and `varchar(255)`, `int4` and `int` compare equal. */
function kindOf(type: string): string {
  const t = type
    .toLowerCase()
    .replace(/\(.*\)/, '')
    .trim();
  if (/^(text|varchar|character varying|char|character|bpchar)$/.test(t)) return 'text';
  if (/^(int|int2|int4|integer|smallint|serial)$/.test(t)) return 'int';
  if (/^(bigint|int8|bigserial)$/.test(t)) return 'bigint';
  if (/^(timestamptz|timestamp with time zone)$/.test(t)) return 'timestamptz';
  return t;
}

interface Mismatch {
  entitiesWithoutTable: string[];
  tablesWithoutEntity: string[];
  propertiesWithoutColumn: string[];
  columnsWithoutProperty: string[];
  differentColumns: string[];
}

/** Compares the database (`from`) with what the entities describe (`to`). */
function mismatches(orm: MikroORM, from: DatabaseSchema, to: DatabaseSchema): Mismatch {
  const diff = new SchemaComparator(orm.em.getPlatform()).compare(from, to);
  const result: Mismatch = {
    entitiesWithoutTable: Object.values(diff.newTables).map((table) => table.name),
    tablesWithoutEntity: Object.values(diff.removedTables)
      .map((table) => table.name)
      .filter((name) => !WITHOUT_ENTITY.includes(name)),
    propertiesWithoutColumn: [],
    columnsWithoutProperty: [],
    differentColumns: [],
  };
  for (const change of Object.values(diff.changedTables)) {
    const table = change.toTable;
    for (const column of Object.values(change.addedColumns))
      result.propertiesWithoutColumn.push(`${table.name}.${column.name}`);
    for (const column of Object.values(change.removedColumns))
      result.columnsWithoutProperty.push(`${table.name}.${column.name}`);
    for (const [name, difference] of Object.entries(change.changedColumns)) {
      const { column: entity, fromColumn: db } = difference;
      if (entity.nullable !== db.nullable) {
        result.differentColumns.push(
          `${table.name}.${name}: ${db.nullable ? 'null' : 'not null'} in the database, ${entity.nullable ? 'null' : 'not null'} in the entity`,
        );
      }
      if (kindOf(entity.type) !== kindOf(db.type)) {
        result.differentColumns.push(`${table.name}.${name}: ${db.type} in the database, ${entity.type} in the entity`);
      }
    }
  }
  return result;
}

const none: Mismatch = {
  entitiesWithoutTable: [],
  tablesWithoutEntity: [],
  propertiesWithoutColumn: [],
  columnsWithoutProperty: [],
  differentColumns: [],
};

describe('migrations and entities', () => {
  let orm: MikroORM;
  let database: DatabaseSchema;
  beforeAll(async () => {
    orm = await openOrm(testConfig().databaseUrl!);
    database = await DatabaseSchema.create(
      orm.em.getConnection(),
      orm.em.getPlatform(),
      orm.config,
      undefined,
      undefined,
      undefined,
      ['mikro_orm_migrations'],
    );
  });
  afterAll(async () => {
    await orm?.close();
  });

  it('describe the same tables and columns', () => {
    expect(mismatches(orm, database, orm.getSchemaGenerator().getTargetSchema())).toEqual(none);
  });

  it('would notice a property without a column and a column without a property', () => {
    // The same comparison against a copy of the entities' schema with one column taken away: the
    // database then has a column no property describes, and the other way round.
    const entities = orm.getSchemaGenerator().getTargetSchema();
    entities.getTable('devices')!.removeColumn('queue_depth');
    expect(mismatches(orm, database, entities).columnsWithoutProperty).toEqual(['devices.queue_depth']);
    const trimmed = orm.getSchemaGenerator().getTargetSchema();
    trimmed.getTable('devices')!.removeColumn('queue_depth');
    expect(mismatches(orm, trimmed, orm.getSchemaGenerator().getTargetSchema()).propertiesWithoutColumn).toEqual([
      'devices.queue_depth',
    ]);
  });
});
