import { fieldsOf } from '../messages/placeholders';
import type { MessageTemplate } from './template.entity';

/** The only serialiser of a saved template: with the fields its placeholders use. */
export const templateView = (template: MessageTemplate) => ({
  id: template.id,
  name: template.name,
  body: template.body,
  fields: fieldsOf(template.body),
  created_at: template.createdAt.toISOString(),
  updated_at: template.updatedAt.toISOString(),
});
