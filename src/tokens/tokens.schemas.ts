import * as yup from '../lib/yup';
import { int } from '../lib/fields';
import { pageFields } from '../http/pagination';
import { scopesField } from '../api-keys/api-keys.schemas';
import { TOKEN_TTL } from './tokens.service';

export const mintTokenBody = yup.object({
  scopes: scopesField(),
  ttl_seconds: int(TOKEN_TTL.minSeconds, TOKEN_TTL.maxSeconds).default(TOKEN_TTL.defaultSeconds),
});

export const listTokensQuery = yup.object({ ...pageFields() });
