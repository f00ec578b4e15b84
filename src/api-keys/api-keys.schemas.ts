import * as yup from 'yup';
import { booleanQuery, timestamp } from '../lib/fields';
import { SCOPES } from './api-key.entity';

export const listKeysQuery = yup.object({
  include_revoked: booleanQuery().default(false),
});

export const createKeyBody = yup.object({
  name: yup.string().trim().min(1).max(100).required(),
  scopes: yup
    .array(
      yup
        .string()
        .oneOf([...SCOPES], '${path} must be one of: ' + SCOPES.join(', '))
        .required(),
    )
    .nullable(),
  expires_at: timestamp()
    .nullable()
    .test('future', '${path} must be in the future', (value) => !value || value.getTime() > Date.now()),
});

export const renameKeyBody = yup.object({
  name: yup.string().trim().min(1).max(100).required(),
});
