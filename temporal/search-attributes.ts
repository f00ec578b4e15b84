import { isGrpcServiceError, type ConnectionLike } from '@temporalio/client';
import { TypedSearchAttributes, type SearchAttributeType } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import type { Logger } from '../src/lib/logger';
import { SEARCH_ATTRIBUTES } from '../workflows/search-attributes';

// Registering the custom search attributes (workflows/search-attributes.ts) on a namespace: the dev
// server gets them as flags, the test servers and a real cluster through the operator service. On a
// production cluster where the worker may not (Temporal Cloud, a restricted operator role), an
// operator runs docs/workflows.md's `temporal operator search-attribute create` step once.

const { IndexedValueType } = temporal.api.enums.v1;
const INDEXED_TYPES: Record<SearchAttributeType, temporal.api.enums.v1.IndexedValueType> = {
  TEXT: IndexedValueType.INDEXED_VALUE_TYPE_TEXT,
  KEYWORD: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
  INT: IndexedValueType.INDEXED_VALUE_TYPE_INT,
  DOUBLE: IndexedValueType.INDEXED_VALUE_TYPE_DOUBLE,
  BOOL: IndexedValueType.INDEXED_VALUE_TYPE_BOOL,
  DATETIME: IndexedValueType.INDEXED_VALUE_TYPE_DATETIME,
  KEYWORD_LIST: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD_LIST,
};

const ALREADY_EXISTS = 6;
const PERMISSION_DENIED = 7;
const UNIMPLEMENTED = 12;

/** `--search-attribute Name=Keyword` for each, as `temporal server start-dev` takes them. */
export function searchAttributeFlags(): string[] {
  return SEARCH_ATTRIBUTES.flatMap((key) => [
    '--search-attribute',
    `${key.name}=${TypedSearchAttributes.toMetadataType(key.type)}`,
  ]);
}

/** The ones the namespace lacks, and names registered with another type (reported, never replaced). */
async function check(connection: Pick<ConnectionLike, 'operatorService'>, namespace: string) {
  const listed = await connection.operatorService.listSearchAttributes({ namespace });
  const known = { ...listed.systemAttributes, ...listed.customAttributes };
  return {
    absent: SEARCH_ATTRIBUTES.filter((key) => !(key.name in known)),
    mismatched: SEARCH_ATTRIBUTES.filter((key) => key.name in known && known[key.name] !== INDEXED_TYPES[key.type]).map(
      (key) => key.name,
    ),
  };
}

const refused = (error: unknown) =>
  isGrpcServiceError(error) && (error.code === PERMISSION_DENIED || error.code === UNIMPLEMENTED);

/**
 * What the namespace lacks of the custom search attributes, in words (undefined: nothing), for
 * readiness: every workflow start fails without them. A server that will not list them (the
 * time-skipping test server, a restricted role) is not held against it, as ensureSearchAttributes
 * does not hold it.
 */
export async function searchAttributesProblem(
  connection: Pick<ConnectionLike, 'operatorService'>,
  namespace: string,
): Promise<string | undefined> {
  let found: Awaited<ReturnType<typeof check>>;
  try {
    found = await check(connection, namespace);
  } catch (error) {
    if (refused(error)) return undefined;
    throw error;
  }
  if (found.absent.length > 0) {
    return `search attributes ${found.absent.map((key) => key.name).join(', ')} are missing on namespace ${namespace}`;
  }
  if (found.mismatched.length > 0) {
    return `search attributes ${found.mismatched.join(', ')} are registered with another type than Keyword on namespace ${namespace}`;
  }
  return undefined;
}

/**
 * Makes sure the namespace has every custom search attribute, adding the missing ones one by one; one
 * that exists already (another worker added it meanwhile) is fine. Where the server refuses to add a
 * missing one the worker does not start, since every workflow start would fail: an operator runs
 * `temporal operator search-attribute create` (docs/workflows.md) once. A server that cannot list them (the
 * time-skipping test server) gets every one added, "already exists" tolerated; where it refuses
 * both, the worker starts with a warning.
 */
export async function ensureSearchAttributes(
  connection: Pick<ConnectionLike, 'operatorService'>,
  namespace: string,
  logger?: Logger,
): Promise<void> {
  let absent: (typeof SEARCH_ATTRIBUTES)[number][];
  let listed = true;
  try {
    const found = await check(connection, namespace);
    if (found.mismatched.length > 0) {
      throw new Error(`search attributes registered with another type than Keyword: ${found.mismatched.join(', ')}`);
    }
    absent = found.absent;
  } catch (error) {
    if (!refused(error)) throw error;
    absent = [...SEARCH_ATTRIBUTES];
    listed = false;
  }
  const added: string[] = [];
  for (const key of absent) {
    try {
      await connection.operatorService.addSearchAttributes({
        namespace,
        searchAttributes: { [key.name]: INDEXED_TYPES[key.type] },
      });
      added.push(key.name);
    } catch (error) {
      if (isGrpcServiceError(error) && error.code === ALREADY_EXISTS) continue;
      if (!refused(error)) throw error;
      if (!listed) {
        logger?.warn(
          { err: error, namespace },
          'cannot check or register search attributes here; they must exist (docs/workflows.md, "Registering them")',
        );
        return;
      }
      const names = absent.map((k) => k.name).join(', ');
      throw new Error(
        `search attributes ${names} are missing on namespace ${namespace} and this worker may not create them: ` +
          'run `temporal operator search-attribute create` for each (docs/workflows.md, "Registering them")',
        { cause: error },
      );
    }
  }
  if (added.length > 0) logger?.info({ names: added, namespace }, 'search attributes registered');
}
