#!/usr/bin/env bash
# Installs SMSGate's published Python client (PyPI android-sms-gateway, pinned) into a virtualenv in
# the cache outside the repo (test/support/pip-venv.sh), for test/compat/smsgate/integrator-python.test.ts.
# Prints the venv's python on success; exits 1 with pip's output if not.
set -euo pipefail
version="4.3.3"
# The encryption extra (pycryptodome) is the client's Encryptor, for encrypted.py.
venv="$("$(dirname "$0")/../../../support/pip-venv.sh" "smsgate-python-$version-encryption" \
  "android-sms-gateway[requests,encryption]==$version" python -c 'import android_sms_gateway, requests, Crypto')"
echo "$venv/bin/python"
