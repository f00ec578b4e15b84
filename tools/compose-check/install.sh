#!/usr/bin/env bash
# Builds compose-check (main.go: the Compose project's own loader) into the cache outside the repo,
# like temporal/install.sh builds the Temporal servers, and prints its path. A second run finds the
# cache (keyed by this folder's sources) and prints at once.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache="${PHONE_GATEWAY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/phone-gateway}"
key="$(cat "$here/go.mod" "$here/go.sum" "$here/main.go" | sha256sum | cut -c1-16)"
dir="$cache/compose-check-$key"
if [ ! -x "$dir/compose-check" ]; then
  if ! command -v go >/dev/null 2>&1; then
    echo "[compose-check] Go is not installed: it is needed to build the Compose file check." >&2
    exit 1
  fi
  echo "[compose-check] Building it with go build (first time only)..." >&2
  mkdir -p "$dir"
  (cd "$here" && GOFLAGS="${GOFLAGS:-} -buildvcs=false -mod=readonly" go build -o "$dir/compose-check.partial" .)
  mv "$dir/compose-check.partial" "$dir/compose-check"
fi
echo "$dir/compose-check"
