import { uuid } from '../lib/fields';
import * as yup from '../lib/yup';

/** GET /v1/messages/{id}/attachments/{attachment_id}. */
export const attachmentParams = yup.object({
  id: uuid().required(),
  attachment_id: uuid().required(),
});
