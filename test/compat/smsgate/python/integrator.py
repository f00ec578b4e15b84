"""SMSGate's published Python client (PyPI android-sms-gateway 4.x) against this service.

Usage: python integrator.py <base URL> <API key> <webhook URL>
Runs the client's calls an integration makes and prints what they returned as one JSON object; a
refused call is printed as {"status": ..., "message": ...} in place of its result.
"""

import json
import sys

from android_sms_gateway import client, domain
from android_sms_gateway.enums import WebhookEvent
from android_sms_gateway.enums import LimitPeriod, MessagesProcessingOrder, SimSelectionMode


def refused(call):
    try:
        return call()
    except Exception as error:  # the client's HTTP errors carry the status and the JSON body
        return {
            "status": getattr(error, "status_code", None) or getattr(getattr(error, "response", None), "status_code", None),
            "message": str(error),
        }


def main() -> None:
    base_url, key, webhook_url = sys.argv[1:4]
    out = {}
    # Basic: the login is not read here, the password is the API key.
    with client.APIClient("integrator@example.com", key, base_url=base_url) as api:
        out["health"] = api.health_check().status.value
        out["devices"] = [device.id for device in api.list_devices()]
        hook = api.create_webhook(domain.Webhook(id="py-hook", url=webhook_url, event=WebhookEvent.SMS_SENT))
        out["webhook"] = {"id": hook.id, "event": hook.event.value}
        out["webhooks"] = [w.id for w in api.get_webhooks()]
        # A webhook tied to one phone (device_id), listed back with it; a phone of no one's refused.
        phone = out["devices"][0]
        tied = api.create_webhook(domain.Webhook(id="py-phone-hook", url=webhook_url, event=WebhookEvent.SMS_RECEIVED, device_id=phone))
        out["phone_webhook"] = {"id": tied.id, "device_id": tied.device_id}
        out["phone_webhooks"] = {w.id: w.device_id for w in api.get_webhooks()}
        elsewhere = domain.Webhook(id="py-far-hook", url=webhook_url, event=WebhookEvent.SMS_SENT, device_id="PyDmBQZZXYmyxMwED8Fzy")
        out["phone_webhook_elsewhere"] = refused(lambda: api.create_webhook(elsewhere))
        api.delete_webhook("py-phone-hook")
        state = api.send(domain.Message(phone_numbers=["+14155550170"], text_message=domain.TextMessage(text="Hello from Python"), id="py-1"))
        out["sent"] = {"id": state.id, "state": state.state.value}
        again = api.get_state("py-1")
        out["state"] = {"id": again.id, "state": again.state.value, "recipients": [r.phone_number for r in again.recipients]}
        out["list"] = [m.id for m in api.get_messages()]
        out["unknown"] = refused(lambda: api.get_state("no-such-message"))
        # A data SMS (bytes to a port), and a webhook for the data SMS the phone receives.
        data = api.send(domain.Message(phone_numbers=["+14155550172"], id="py-data",
                                       data_message=domain.DataMessage.with_bytes(b"\x00\x01ping", 53739)))
        out["data_sent"] = {"id": data.id, "state": data.state.value}
        data_hook = api.create_webhook(domain.Webhook(id="py-data-hook", url=webhook_url, event=WebhookEvent.SMS_DATA_RECEIVED))
        out["data_webhook"] = {"id": data_hook.id, "event": data_hook.event.value}
        api.delete_webhook("py-data-hook")
        # Cancelling one message: a pending one is cancelled; again, it is no longer pending (409).
        api.send(domain.Message(phone_numbers=["+14155550171"], text_message=domain.TextMessage(text="Cancel me"), id="py-cancel"))
        api.cancel_message("py-cancel")
        cancelled = api.get_state("py-cancel")
        out["cancelled"] = {"state": cancelled.state.value, "recipients": [r.state.value for r in cancelled.recipients]}
        out["cancel_again"] = refused(lambda: api.cancel_message("py-cancel"))
        # The inbox: the texts the phone received, newest first; filtered by phone, type and page.
        phone_id = api.list_devices()[0].id
        out["inbox"] = [[m.sender, m.message_type, m.content_preview, m.sim_number] for m in api.list_inbox_messages()]
        out["inbox_page"] = [
            m.content_preview
            for m in api.list_inbox_messages(
                inbox_filter=domain.InboxQueryFilter(device_id=phone_id, include_attachments=True),
                pagination=domain.QueryPagination(limit=1, offset=1),
            )
        ]
        out["inbox_mms"] = api.list_inbox_messages(inbox_filter=domain.InboxQueryFilter(message_type="MMS"))
        api.delete_webhook("py-hook")
        out["webhooks_after"] = [w.id for w in api.get_webhooks()]
    # Bearer: the API key alone.
    with client.APIClient(None, key, base_url=base_url) as api:
        out["bearer_devices"] = [device.id for device in api.list_devices()]
    # Settings: SIM rotation, a daily limit and newest first, patched and read back.
    with client.APIClient(None, key, base_url=base_url) as api:
        api.patch_settings(domain.DeviceSettings(messages=domain.SettingsMessages(
            sim_selection_mode=SimSelectionMode.ROUND_ROBIN, limit_period=LimitPeriod.PER_DAY, limit_value=500,
            processing_order=MessagesProcessingOrder.LIFO)))
        m = api.get_settings().messages
        out["settings"] = {"sim_selection_mode": m.sim_selection_mode.value, "limit_period": m.limit_period.value,
                           "limit_value": m.limit_value, "processing_order": m.processing_order.value}
    # Tokens: minted with the key (generate_token), used as a Bearer token, refused once revoked.
    with client.APIClient("integrator@example.com", key, base_url=base_url) as api:
        token = api.generate_token(domain.TokenRequest(scopes=["devices:list"], ttl=600))
        out["token"] = {"type": token.token_type, "prefix": token.access_token[:3], "expires_at": token.expires_at}
        with client.APIClient(None, token.access_token, base_url=base_url) as holder:
            out["token_devices"] = [device.id for device in holder.list_devices()]
            out["token_other_scope"] = refused(lambda: holder.get_messages())
            api.revoke_token(token.id)
            out["token_revoked"] = refused(lambda: holder.list_devices())
        out["token_unknown_scope"] = refused(lambda: api.generate_token(domain.TokenRequest(scopes=["mms:send"])))
        # A pair's refresh token (refresh_token) gets the next pair, once; the revoked token's refresh is refused.
        pair = api.generate_token(domain.TokenRequest(scopes=["devices:list"], ttl=600))
        renewed = api.refresh_token(pair.refresh_token)
        with client.APIClient(None, renewed.access_token, base_url=base_url) as holder:
            out["refreshed_devices"] = [device.id for device in holder.list_devices()]
        out["refreshed"] = {
            "new_token": renewed.id != pair.id and renewed.access_token != pair.access_token,
            "new_refresh": renewed.refresh_token.startswith("tr_") and renewed.refresh_token != pair.refresh_token,
        }
        out["refresh_again"] = refused(lambda: api.refresh_token(pair.refresh_token))
        out["refresh_revoked"] = refused(lambda: api.refresh_token(token.refresh_token))
    print(json.dumps(out))


if __name__ == "__main__":
    main()
