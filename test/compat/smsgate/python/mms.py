"""A received MMS through SMSGate's published Python client (PyPI android-sms-gateway 4.x).

Usage: python mms.py <base URL> <API key>
Lists the inbox's downloaded MMS with their attachments and downloads each (download_attachment);
prints one JSON object: each MMS's id and attachments, each attachment's bytes as hex, and what a
part that is not there answers.
"""

import json
import sys

from android_sms_gateway import client, domain


def main() -> None:
    base_url, key = sys.argv[1:3]
    out = {}
    with client.APIClient("integrator@example.com", key, base_url=base_url) as api:
        messages = api.list_inbox_messages(
            inbox_filter=domain.InboxQueryFilter(message_type="MMS_DOWNLOADED", include_attachments=True)
        )
        out["mms"] = [
            {
                "id": m.id,
                "type": m.message_type,
                "attachments": [
                    {"part_id": a.part_id, "name": a.name, "size": a.size, "content_type": a.content_type}
                    for a in m.attachments or []
                ],
            }
            for m in messages
        ]
        out["downloads"] = {
            str(a.part_id): api.download_attachment(m.id, a.part_id).hex() for m in messages for a in m.attachments or []
        }
        try:
            api.download_attachment(messages[0].id, 999999)
            out["missing"] = None
        except Exception as error:
            out["missing"] = getattr(error, "status_code", None)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
