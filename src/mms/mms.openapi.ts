import { bool, id, int, nullable, object, str, ts } from '../openapi/json-parts';
import { type Operation, op, read, tagged } from '../openapi/operation';
import type { JsonSchema } from '../openapi/yup-to-json-schema';
import { attachmentParams } from './mms.schemas';

// The OpenAPI document's part of mms.routes.ts, and the resources of mms.views.ts (a received MMS's
// own fields on its message are in Message, src/messages/messages.openapi.ts).

/** The document lists the download between GET /v1/messages/{id} and the rest of the messages' operations. */
export const mmsOperations: Operation[] = tagged('Messages', [
  op(
    'GET /v1/messages/{id}/attachments/{attachment_id}',
    read,
    'Download an attachment of a received MMS',
    { 200: { type: 'string', contentMediaType: 'application/octet-stream' } },
    {
      params: attachmentParams,
      contentType: '*/*',
      errors: [410],
      description:
        'The bytes as the phone forwarded them, with their Content-Type. Anything but a PNG, JPEG, GIF, WebP ' +
        'or BMP image is served as a download (Content-Disposition: attachment), and every response carries ' +
        'X-Content-Type-Options: nosniff and Content-Security-Policy: sandbox. Errors: not_stored (410) when ' +
        "its bytes were not kept (see the attachment's not_stored).",
    },
  ),
]);

export const mmsResources: Record<string, JsonSchema> = {
  Attachment: object(
    {
      id,
      part_id: { ...int, description: "The part's number on the phone (SMSGate's partId)." },
      content_type: str,
      name: nullable(str),
      size: { ...int, description: 'Bytes (as the phone declared them when not stored).' },
      stored: { ...bool, description: 'Whether its bytes are kept and can be downloaded.' },
      not_stored: {
        type: ['string', 'null'],
        enum: ['over_quota', 'no_data', 'expired', null],
        description:
          "Why not: the account's MMS_ATTACHMENT_QUOTA_BYTES was used up, the phone sent no bytes, or " +
          'MMS_ATTACHMENT_RETENTION has passed.',
      },
    },
    'A part of a received MMS.',
  ),
  MmsNotice: object(
    {
      device_id: id,
      phone_message_id: { ...str, description: "The phone's id of the MMS (SMSGate's messageId)." },
      sender: str,
      recipient: nullable(str),
      sim_subscription_id: nullable(int),
      transaction_id: str,
      subject: nullable(str),
      size: { ...int, description: 'Bytes the MMS declares.' },
      content_class: nullable(str),
      received_at: ts,
    },
    'An MMS a phone was told of and has not downloaded yet (nothing is stored; mms.downloaded follows).',
  ),
};
