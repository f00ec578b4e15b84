import * as yup from '../lib/yup';
import { booleanQuery, text, timestamp, trimmedText } from '../lib/fields';
import { SCOPES } from './api-key.entity';

export const listKeysQuery = yup.object({
  include_revoked: booleanQuery().default(false),
});

/** Scopes a key or token asks for: each one of ours; null or absent for all (of the creator's). */
export const scopesField = () =>
  yup
    .array(
      text(32)
        .oneOf([...SCOPES], '${path} must be one of: ' + SCOPES.join(', '))
        .required(),
    )
    .max(SCOPES.length * 4, '${path} must name each scope once')
    .nullable();

export const createKeyBody = yup.object({
  name: trimmedText(100).min(1).required(),
  scopes: scopesField(),
  expires_at: timestamp()
    .nullable()
    .test('future', '${path} must be in the future', (value) => !value || value.getTime() > Date.now()),
});

export const renameKeyBody = yup.object({
  name: trimmedText(100).min(1).required(),
});
