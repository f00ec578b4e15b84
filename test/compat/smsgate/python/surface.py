"""The rest of SMSGate's published Python client (PyPI android-sms-gateway 4.x) against this service:
its health probes, settings, logs, inbox export and refresh, and device removal.

Usage: python surface.py <base URL> <API key> <device id> <since ISO> <until ISO>
Prints what each call returned as one JSON object; a refused call is printed as
{"status": ..., "message": ...} in place of its result.
"""

import datetime
import json
import sys

from android_sms_gateway import client, domain
from android_sms_gateway.enums import LimitPeriod

from integrator import refused


def main() -> None:
    base_url, key, device_id, since, until = sys.argv[1:6]
    since_at = datetime.datetime.fromisoformat(since)
    until_at = datetime.datetime.fromisoformat(until)
    out = {}
    with client.APIClient("integrator@example.com", key, base_url=base_url) as api:
        out["probes"] = [
            probe().status.value for probe in (api.liveness_check, api.readiness_check, api.startup_check)
        ]
        out["checks"] = sorted((api.health_check().checks or {}).keys())

        # PUT replaces what it names, PATCH changes one key; both read back through get_settings.
        api.update_settings(
            domain.DeviceSettings(
                messages=domain.SettingsMessages(
                    send_interval_min=5, send_interval_max=9, limit_period=LimitPeriod.PER_HOUR, limit_value=40
                ),
                ping=domain.SettingsPing(interval_seconds=900),
            )
        )
        put = api.get_settings()
        out["after_put"] = {
            "send_interval_min": put.messages.send_interval_min,
            "send_interval_max": put.messages.send_interval_max,
            "limit_period": put.messages.limit_period.value,
            "limit_value": put.messages.limit_value,
            "ping": put.ping.interval_seconds,
        }
        # One key of a pair alone: the limit keeps its period, the longest pause keeps the shortest.
        api.patch_settings(domain.DeviceSettings(messages=domain.SettingsMessages(limit_value=25, send_interval_max=12)))
        patched = api.get_settings()
        out["after_patch"] = {
            "limit_period": patched.messages.limit_period.value,
            "limit_value": patched.messages.limit_value,
            "send_interval_min": patched.messages.send_interval_min,
            "send_interval_max": patched.messages.send_interval_max,
        }
        out["refused_setting"] = refused(
            lambda: api.patch_settings(domain.DeviceSettings(logs=domain.SettingsLogs(lifetime_days=3)))
        )

        logs = api.get_logs(from_=since, to=until)
        out["logs"] = sorted({entry.message for entry in logs})

        out["export"] = refused(
            lambda: api.export_inbox(domain.MessagesExportRequest(device_id=device_id, since=since_at, until=until_at))
        )
        out["refresh"] = refused(
            lambda: api.refresh_inbox(domain.InboxRefreshRequest(since=since_at, until=until_at, device_id=device_id))
        )
        out["export_backwards"] = refused(
            lambda: api.export_inbox(domain.MessagesExportRequest(device_id=device_id, since=until_at, until=since_at))
        )

        api.remove_device(device_id)
        out["devices_after_removal"] = [device.id for device in api.list_devices()]
        out["remove_again"] = refused(lambda: api.remove_device(device_id))
    print(json.dumps(out, default=str))


if __name__ == "__main__":
    main()
