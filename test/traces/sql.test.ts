import { describe, expect, it } from 'vitest';
import { sanitizeSql } from '../../src/traces/sql';

// MikroORM inlines every value into the SQL text, so a SQL span's statement is only safe after
// every literal is gone. These are the token kinds that could hide a quote from a naive scan.

describe('SQL statements in spans', () => {
  it.each([
    [
      'strings and numbers',
      `select * from "messages" where "recipient" = '+14155550101' and "n" > 42`,
      `select * from "messages" where "recipient" = ? and "n" > ?`,
    ],
    ['doubled quotes', `insert into "t" ("a") values ('it''s a secret')`, `insert into "t" ("a") values (?)`],
    ['pg escapes a backslash as E with doubled backslashes', `values ( E'a\\\\b''c', 'next')`, `values ( ?, ?)`],
    ['a plain string ending in a backslash (standard strings)', `select 'x\\', 'secret'`, `select ?, ?`],
    ['bytes', `values (E'\\\\x0a0b')`, `values (?)`],
    [
      'quoted identifiers are kept, quotes in them too',
      `select "we""ird", "it's" from "t" where x = 'v'`,
      `select "we""ird", "it's" from "t" where x = ?`,
    ],
    [
      'a comment with an apostrophe',
      `select 1 -- the phone's\nfrom t where a = 'secret'`,
      `select ? -- the phone's\nfrom t where a = ?`,
    ],
    ['block comments', `/* it's */ select 'secret'`, `/* it's */ select ?`],
    ['dollar quoting', `select $tag$it's 'secret'$tag$, $$x$$`, `select ?, ?`],
    [
      'numbers, not names or placeholders',
      `select t1.v2, $1, -3.5e2, 7::float8 from t1`,
      `select t1.v2, $1, -?, ?::float8 from t1`,
    ],
    ['dates and JSON as strings', `values ('2026-01-01T00:00:00.000Z', '{"to":"+4420"}')`, `values (?, ?)`],
    ['a string cut short (truncated text)', `update t set body = 'never ends`, `update t set body = ?`],
  ])('%s', (_name, sql, expected) => {
    expect(sanitizeSql(sql)).toBe(expected);
  });
});
