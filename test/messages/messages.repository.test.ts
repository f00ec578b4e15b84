import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MikroORM } from '@mikro-orm/postgresql';
import { openOrm } from '../../src/db/orm';
import { Message } from '../../src/messages/message.entity';
import { MESSAGE_COLUMNS, messageFromRow } from '../../src/messages/messages.repository';
import { testConfig } from '../support/config';

// Statements that return messages name their columns (messageColumns) and map them (messageFromRow).
// A column a migration adds to messages must be in both, or every such statement drops it unseen.

/** Columns of messages that no view reads: the search index's own. */
const NOT_READ = ['body_from_batch'];

describe('a message row', () => {
  let orm: MikroORM;
  beforeAll(async () => {
    orm = await openOrm(testConfig().databaseUrl!);
  });
  afterAll(async () => {
    await orm?.close();
  });

  it('names every column of the messages table but those no view reads', async () => {
    const rows = await orm.em
      .getConnection()
      .execute<Array<{ column_name: string }>>(
        `select column_name from information_schema.columns where table_schema = current_schema() and table_name = 'messages'`,
      );
    const columns = rows.map((row) => row.column_name).filter((name) => !NOT_READ.includes(name));
    expect([...MESSAGE_COLUMNS].sort()).toEqual(columns.sort());
  });

  it('maps each column it names to the message property of that column', () => {
    const props = orm
      .getMetadata()
      .find(Message.meta.className)!
      .props.filter((prop) => !NOT_READ.includes(prop.fieldNames[0]));
    expect(props.map((prop) => prop.fieldNames[0]).sort()).toEqual([...MESSAGE_COLUMNS].sort());
    const base = Object.fromEntries(MESSAGE_COLUMNS.map((column) => [column, null]));
    for (const prop of props) {
      const column = prop.fieldNames[0];
      const marker = prop.runtimeType === 'Date' ? new Date(7) : `value of ${column}`;
      const message = messageFromRow({ ...base, [column]: marker }) as unknown as Record<string, unknown>;
      expect({ column, read: message[prop.name] }).toEqual({ column, read: marker });
    }
  });
});
