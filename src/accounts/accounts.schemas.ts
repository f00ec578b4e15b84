import * as yup from '../lib/yup';
import { email, text, trimmedText } from '../lib/fields';
import { PASSWORD_MAX, PASSWORD_MIN } from './passwords';

const password = () =>
  text(PASSWORD_MAX)
    .min(PASSWORD_MIN, '${path} must be at least ${min} characters')
    .max(PASSWORD_MAX, '${path} must be at most ${max} characters');

const turnstile = () => text(4096).nullable();

export const registerBody = yup.object({
  email: email().required(),
  password: password().required(),
  name: trimmedText(200).nullable(),
  turnstile_token: turnstile(),
});

export const loginBody = yup.object({
  email: trimmedText(254).required(),
  password: text(PASSWORD_MAX).required(),
  turnstile_token: turnstile(),
});

export const changePasswordBody = yup.object({
  current_password: text(PASSWORD_MAX).required(),
  new_password: password().required(),
});

export const resetRequestBody = yup.object({
  email: trimmedText(254).required(),
  turnstile_token: turnstile(),
});

const sixDigits = () => text(6).matches(/^\d{6}$/, '${path} must be 6 digits');

export const resetBody = yup.object({
  email: trimmedText(254).required(),
  code: sixDigits().required(),
  new_password: password().required(),
});

export const profileBody = yup.object({
  name: trimmedText(200).nullable(),
});

export const verifyEmailBody = yup.object({
  code: sixDigits().required(),
});

export const accountSettingsBody = yup.object({
  /** Offline phones' waiting messages move to another online phone of the account. */
  failover: yup.boolean().strict(),
});
