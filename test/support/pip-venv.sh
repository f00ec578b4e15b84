#!/usr/bin/env bash
# Installs a pinned PyPI package into a virtualenv of its own in the cache outside the repo, for the
# tests that run a Python tool or client. A second run finds it and returns at once.
# Usage: pip-venv.sh NAME REQUIREMENT CHECK...
#   NAME         the venv's folder in the cache (name it with the version)
#   REQUIREMENT  what pip installs, pinned: "schemathesis==4.32.5"
#   CHECK...     a command that succeeds once it is installed, run with the venv's bin/ first on PATH
# Prints the venv's folder on success; exits non-zero with pip's output if not.
set -euo pipefail
name="$1"
requirement="$2"
shift 2
cache="${PHONE_GATEWAY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/phone-gateway}"
venv="$cache/$name"
if [ -x "$venv/bin/python" ] && PATH="$venv/bin:$PATH" "$@" >/dev/null 2>&1; then
  echo "$venv"
  exit 0
fi
rm -rf "$venv"
python3 -m venv "$venv" >&2
"$venv/bin/pip" install --quiet --disable-pip-version-check "$requirement" >&2
echo "$venv"
