import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { createdAt, id, updatedAt } from '../db/base.entity';

/** A message text an account saved to send again: `{field}` placeholders are filled per recipient. */
export const MessageTemplate = defineEntity({
  name: 'MessageTemplate',
  tableName: 'message_templates',
  properties: {
    id: id(),
    userId: p.uuid(),
    /** Unique within the account: the Send screen's picker lists templates by name. */
    name: p.string(),
    body: p.text(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
});
export type MessageTemplate = InferEntity<typeof MessageTemplate>;
