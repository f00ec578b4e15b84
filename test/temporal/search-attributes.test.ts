import type { ConnectionLike } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { ensureSearchAttributes, searchAttributeFlags } from '../../temporal/search-attributes';
import type { Logger } from '../../src/lib/logger';

const KEYWORD = 2;
const TEXT = 1;
const ALL = ['AccountId', 'DeviceId', 'WebhookId', 'BatchStatus', 'DeliveryStatus', 'LivenessStatus'];

/** A gRPC service error as the client raises it. */
const grpcError = (code: number, details: string) =>
  Object.assign(new Error(`${code} ${details}`), { code, details, metadata: {} });

/**
 * An operator service over a namespace that has `existing` custom attributes. `list` and `add`
 * answer with that error code instead when given (7 permission denied, 12 unimplemented).
 */
function server(existing: Record<string, number>, refuse: { list?: number; add?: number } = {}) {
  const custom = { ...existing };
  const added: string[] = [];
  const operatorService = {
    async listSearchAttributes() {
      if (refuse.list) throw grpcError(refuse.list, 'no');
      return { customAttributes: { ...custom }, systemAttributes: { WorkflowType: KEYWORD } };
    },
    async addSearchAttributes({ searchAttributes }: { searchAttributes: Record<string, number> }) {
      if (refuse.add) throw grpcError(refuse.add, 'no');
      for (const [name, type] of Object.entries(searchAttributes)) {
        if (name in custom) throw grpcError(6, `Search attribute ${name} already exists.`);
        custom[name] = type;
        added.push(name);
      }
      return {};
    },
  };
  return { connection: { operatorService } as unknown as Pick<ConnectionLike, 'operatorService'>, added, custom };
}

function logger() {
  const warnings: string[] = [];
  const log = { info() {}, warn: (_: unknown, message: string) => warnings.push(message), error() {} };
  return { log: log as unknown as Logger, warnings };
}

describe('registering the custom search attributes', () => {
  it('gives the dev server one --search-attribute Name=Keyword flag each', () => {
    expect(searchAttributeFlags()).toEqual(ALL.flatMap((name) => ['--search-attribute', `${name}=Keyword`]));
  });

  it('adds the missing ones, as keywords, and nothing when all are there', async () => {
    const s = server({ AccountId: KEYWORD, BatchStatus: KEYWORD });
    await ensureSearchAttributes(s.connection, 'default');
    expect(s.added).toEqual(ALL.filter((name) => name !== 'AccountId' && name !== 'BatchStatus'));
    expect(Object.values(s.custom)).toEqual(ALL.map(() => KEYWORD));
    await ensureSearchAttributes(s.connection, 'default');
    expect(s.added).toHaveLength(4);
  });

  it('adds every one where they cannot be listed (the time-skipping server), tolerating those that exist', async () => {
    const s = server({ DeviceId: KEYWORD }, { list: 12 });
    await ensureSearchAttributes(s.connection, 'default');
    expect(s.added).toEqual(ALL.filter((name) => name !== 'DeviceId'));
  });

  it('refuses to start where they are missing and may not be added, pointing at the documented step', async () => {
    const s = server({}, { add: 7 });
    await expect(ensureSearchAttributes(s.connection, 'default')).rejects.toThrow(
      /AccountId, DeviceId.*temporal operator search-attribute create/,
    );
  });

  it('only warns where it can neither list nor add them (they may exist)', async () => {
    const s = server({}, { list: 7, add: 7 });
    const { log, warnings } = logger();
    await ensureSearchAttributes(s.connection, 'default', log);
    expect(warnings).toEqual([expect.stringMatching(/cannot check or register search attributes/)]);
  });

  it('refuses a name registered with another type', async () => {
    const s = server({ AccountId: TEXT });
    await expect(ensureSearchAttributes(s.connection, 'default')).rejects.toThrow(
      /another type than Keyword: AccountId/,
    );
    expect(s.added).toEqual([]);
  });
});
