#!/usr/bin/env bash
# Builds the peer of `npm run bench:peer`: SMSGate's server v1.44.7 (android-sms-gateway/server), with
# Go, into $PEER_DIR/sms-gateway (default ~/.cache/phone-gateway/smsgate-server-v1.44.7). About 5
# minutes on 2 cores. MariaDB comes from Debian: `apt-get install -y mariadb-server`.
#
# The Go module proxy refuses the server's module and two versions it pins (client-go v1.13.2,
# cachefx v0.0.2), so their sources come from git: by default cloned from GitHub, or, where GitHub
# is out of reach, from source trees given as SERVER_SRC, CLIENT_GO_SRC and CACHEFX_SRC (each a
# checkout of the tag below). Every other dependency comes through the module proxy.
set -euo pipefail
PEER_DIR=${PEER_DIR:-$HOME/.cache/phone-gateway/smsgate-server-v1.44.7}
mkdir -p "$PEER_DIR"
cd "$PEER_DIR"

# name, tag, variable naming a local tree, folder
source_tree() {
  local repo=$1 tag=$2 given=$3 into=$4
  [ -d "$into" ] && return
  if [ -n "$given" ]; then
    mkdir -p "$into" && cp -r "$given"/. "$into"
  else
    git clone --quiet --depth 1 --branch "$tag" "https://github.com/$repo.git" "$into"
  fi
}
source_tree android-sms-gateway/server v1.44.7 "${SERVER_SRC:-}" src
source_tree android-sms-gateway/client-go v1.13.2 "${CLIENT_GO_SRC:-}" deps/client-go
source_tree go-core-fx/cachefx v0.0.2 "${CACHEFX_SRC:-}" deps/cachefx

cd src
if ! grep -q '^replace github.com/go-core-fx/cachefx' go.mod; then
  cat >> go.mod <<'EOF'

replace github.com/android-sms-gateway/client-go => ../deps/client-go

replace github.com/go-core-fx/cachefx => ../deps/cachefx

replace github.com/capcom6/go-infra-fx => github.com/capcom6/go-infra-fx v0.5.9
EOF
fi
go mod tidy
go build -o ../sms-gateway ./cmd/sms-gateway
echo "built $PEER_DIR/sms-gateway"
