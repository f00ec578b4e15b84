#!/usr/bin/env bash
# Installs SMSGate's published Python client (PyPI android-sms-gateway, pinned) into a virtualenv in
# the cache outside the repo, for test/compat/smsgate/integrator-python.test.ts. A second run finds
# it and returns at once. Prints the venv's python on success; exits 1 with pip's output if not.
set -euo pipefail
version="4.3.3"
cache="${PHONE_GATEWAY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/phone-gateway}"
venv="$cache/smsgate-python-$version"
if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c 'import android_sms_gateway, requests' 2>/dev/null; then
  echo "$venv/bin/python"
  exit 0
fi
rm -rf "$venv"
python3 -m venv "$venv" >&2
"$venv/bin/pip" install --quiet --disable-pip-version-check "android-sms-gateway[requests]==$version" >&2
echo "$venv/bin/python"
