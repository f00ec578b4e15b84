import type { EntitySchema } from '@mikro-orm/postgresql';

// Every entity of every feature, registered here so discovery needs no folder scan.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const entities: EntitySchema<any, any>[] = [];
