import { id, nullable, object, ref, str, ts } from '../openapi/json-parts';
import { type Operation, noBody, op, page, send, tagged, wrap } from '../openapi/operation';
import type { JsonSchema } from '../openapi/yup-to-json-schema';
import { OPT_OUT_SOURCES } from './opt-out.entity';
import * as optOuts from './opt-outs.schemas';

// The OpenAPI document's part of opt-outs.routes.ts, and the resource of opt-outs.views.ts.
export const optOutsOperations: Operation[] = tagged('Opt-outs', [
  op(
    'GET /v1/opt-outs',
    send,
    "List the account's opted-out numbers, newest first",
    { 200: page('OptOut') },
    {
      query: optOuts.listOptOutsQuery,
      description:
        'Numbers that texted STOP, STOPALL, UNSUBSCRIBE, CANCEL, END or QUIT to one of your phones (case and ' +
        'spacing aside), or were added here. Sends skip them: their messages are created failed with ' +
        'error_code `opted_out` and do not count against the plan. START or UNSTOP takes a number off. ' +
        'With phone_number (normalised as recipients are), only that number: an empty page when it is not listed.',
    },
  ),
  op(
    'POST /v1/opt-outs',
    send,
    'Add a number to the opt-out list (idempotent)',
    { 200: wrap('opt_out', ref('OptOut')), 201: wrap('opt_out', ref('OptOut')) },
    {
      body: optOuts.addOptOutBody,
      description:
        'The number is normalised to E.164 as recipients are. 201 when added, 200 when it was listed already.',
    },
  ),
  op('DELETE /v1/opt-outs/{phone_number}', send, 'Take a number off the opt-out list', noBody, {
    params: optOuts.phoneNumberParams,
    description: 'The number in E.164 (`+` may be sent as `%2B`). 404 when it is not on the list.',
  }),
]);

export const optOutsResources: Record<string, JsonSchema> = {
  OptOut: object(
    {
      phone_number: { ...str, description: 'E.164.' },
      source: {
        type: 'string',
        enum: [...OPT_OUT_SOURCES],
        description: 'inbound: the number texted an opt-out keyword; api: added through the API or dashboard.',
      },
      message_id: { ...nullable(id), description: 'The inbound text that opted out (source inbound).' },
      created_at: ts,
    },
    "A number on the account's suppression list: sends to it are not made.",
  ),
};
