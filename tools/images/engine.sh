#!/usr/bin/env bash
# A Docker engine and Docker Compose v2 for `npm run test:compose`, from package registries only:
# Debian's docker.io and mmdebstrap (apt), dockerd started if it is not running, and Compose built
# from its Go module into the cache and installed as the CLI plugin. A second run returns at once.
set -euo pipefail
cache="${PHONE_GATEWAY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/phone-gateway}"
COMPOSE_VERSION=v2.40.3
say() { printf '[engine] %s\n' "$*" >&2; }

if ! command -v dockerd >/dev/null 2>&1 || ! command -v mmdebstrap >/dev/null 2>&1; then
  say "Installing docker.io and mmdebstrap with apt-get..."
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends docker.io mmdebstrap >/dev/null
fi

if ! docker info >/dev/null 2>&1; then
  say "Starting dockerd..."
  nohup dockerd >/var/log/dockerd.log 2>&1 &
  for _ in $(seq 1 60); do
    docker info >/dev/null 2>&1 && break
    sleep 1
  done
  docker info >/dev/null 2>&1 || { say "dockerd did not start: see /var/log/dockerd.log"; exit 1; }
fi

# `go install …@version` refuses this module (its go.mod has exclude directives): build a copy.
plugin="$cache/docker-compose-$COMPOSE_VERSION/docker-compose"
if [ ! -x "$plugin" ]; then
  say "Building Docker Compose $COMPOSE_VERSION from its Go module (first time only, a few minutes)..."
  src="$(cd / && go mod download -json "github.com/docker/compose/v2@$COMPOSE_VERSION" |
    sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
  work="$(mktemp -d)"
  cp -R "$src/." "$work"
  chmod -R u+w "$work"
  mkdir -p "$(dirname "$plugin")"
  (cd "$work" && GOFLAGS="${GOFLAGS:-} -buildvcs=false" go build -trimpath -ldflags "-X github.com/docker/compose/v2/internal.Version=$COMPOSE_VERSION" -o "$plugin.partial" ./cmd)
  rm -rf "$work"
  mv "$plugin.partial" "$plugin"
fi
mkdir -p "$HOME/.docker/cli-plugins"
ln -sf "$plugin" "$HOME/.docker/cli-plugins/docker-compose"
docker compose version >/dev/null
