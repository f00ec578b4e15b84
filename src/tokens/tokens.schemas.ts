import * as yup from '../lib/yup';
import { int, text } from '../lib/fields';
import { pageFields } from '../http/pagination';
import { SCOPES } from '../api-keys/api-key.entity';
import { TOKEN_TTL } from './tokens.service';

export const mintTokenBody = yup.object({
  scopes: yup
    .array(
      text(32)
        .oneOf([...SCOPES], '${path} must be one of: ' + SCOPES.join(', '))
        .required(),
    )
    .max(SCOPES.length * 4, '${path} must name each scope once')
    .nullable(),
  ttl_seconds: int(TOKEN_TTL.minSeconds, TOKEN_TTL.maxSeconds).default(TOKEN_TTL.defaultSeconds),
});

export const listTokensQuery = yup.object({ ...pageFields() });
