import { newId } from '../lib/ids';
import { p } from '@mikro-orm/postgresql';

// The columns every owned row shares. Timestamps are timestamptz, in UTC.
export const id = () =>
  p
    .uuid()
    .primary()
    .onCreate(() => newId());
export const createdAt = () =>
  p
    .datetime()
    .columnType('timestamptz')
    .onCreate(() => new Date());
export const updatedAt = () =>
  p
    .datetime()
    .columnType('timestamptz')
    .onCreate(() => new Date())
    .onUpdate(() => new Date());
export const timestamp = () => p.datetime().columnType('timestamptz');
