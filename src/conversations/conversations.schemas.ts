import * as yup from '../lib/yup';
import { pageFields } from '../http/pagination';
import { trimmedText } from '../lib/fields';

/** GET /v1/conversations: the numbers that texted the account, latest conversation first. */
export const listConversationsQuery = yup.object({
  ...pageFields(),
  q: trimmedText(200),
});
export type ListConversationsQuery = yup.InferType<typeof listConversationsQuery>;
