import { type Operation, op, tagged } from '../openapi/operation';

// The OpenAPI document's part of google.routes.ts.
export const googleOperations: Operation[] = tagged('Accounts', [
  op(
    'GET /v1/auth/google/start',
    'none',
    'Start Google sign-in (a browser navigation)',
    {},
    {
      redirect: true,
      description: 'Redirects to Google; 404 when Google sign-in is off (see /v1/auth/config).',
    },
  ),
  op(
    'GET /v1/auth/google/callback',
    'none',
    'Finish Google sign-in (a browser navigation)',
    {},
    {
      redirect: true,
      setsCookie: true,
      description: 'Redirects to the dashboard, with ?error=google_sign_in_failed on failure.',
    },
  ),
]);
