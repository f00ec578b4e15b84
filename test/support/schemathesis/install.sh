#!/usr/bin/env bash
# Installs Schemathesis (PyPI, pinned) into a virtualenv in the cache outside the repo, for the
# generated fuzz runs (test/support/schemathesis.ts). A second run finds it and returns at once.
# Prints the venv's `st` on success; exits non-zero with pip's output if not.
set -euo pipefail
version="4.32.5"
cache="${PHONE_GATEWAY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/phone-gateway}"
venv="$cache/schemathesis-$version"
if [ -x "$venv/bin/st" ] && "$venv/bin/st" --version 2>/dev/null | grep -q "$version"; then
  echo "$venv/bin/st"
  exit 0
fi
rm -rf "$venv"
python3 -m venv "$venv" >&2
"$venv/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$version" >&2
echo "$venv/bin/st"
