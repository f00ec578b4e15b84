#!/usr/bin/env bash
# Installs the pinned Temporal servers into a cache outside the repo, from package registries only:
#   cli          the Temporal CLI (dev server + Web UI), built with `go install` from its Go module
#   test-server  the Java time-skipping test server from Maven Central, behind an `exec` launcher
#   server       the Temporal server and its SQL schema tool (the cluster: `npm run cluster`), built
#                with `go install` at the server version the CLI is built on, with the server's own
#                Postgres schema files copied beside them; and the Temporal UI server the CLI embeds
#   all          what `npm test` needs: the test server, the CLI, and the server without its UI (the
#                mTLS test, test/temporal/tls.test.ts, runs it: the dev server has no TLS)
# Usage: temporal/install.sh [cli|test-server|server|all]   (default: test-server; `npm start` asks for cli)
# A second run finds the cache and returns at once. Without Go (or Java and Maven) it says so and
# exits 0: the SDK's own download is then the fallback (see temporal/paths.ts).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=/dev/null
source "$here/versions.env"
cache="${PHONE_GATEWAY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/phone-gateway}"
what="${1:-test-server}"

say() { printf '[temporal] %s\n' "$*" >&2; }

install_cli() {
  local dir="$cache/temporal-cli-$TEMPORAL_CLI_VERSION"
  if [ -x "$dir/temporal" ]; then return 0; fi
  if ! command -v go >/dev/null 2>&1; then
    say "Go is not installed: the start command will fall back to the SDK's download of the CLI."
    return 0
  fi
  say "Building the Temporal CLI $TEMPORAL_CLI_VERSION with go install (first time only, a few minutes)..."
  mkdir -p "$dir"
  local started=$SECONDS
  # -x would be too loud; a ticker shows the build is alive.
  ( while sleep 30; do say "  still building ($((SECONDS - started))s)..."; done ) &
  local ticker=$!
  trap 'kill $ticker 2>/dev/null || true' RETURN
  GOBIN="$dir.partial" GOFLAGS="${GOFLAGS:-} -buildvcs=false" \
    go install "github.com/temporalio/cli/cmd/temporal@$TEMPORAL_CLI_VERSION"
  mv "$dir.partial/temporal" "$dir/temporal"
  rmdir "$dir.partial"
  say "Temporal CLI ready: $dir/temporal ($((SECONDS - started))s)"
}

install_server() {
  local dir="$cache/temporal-server-$TEMPORAL_SERVER_VERSION"
  if [ -x "$dir/temporal-server" ] && [ -x "$dir/temporal-sql-tool" ] && [ -d "$dir/schema" ]; then return 0; fi
  if ! command -v go >/dev/null 2>&1; then
    say "Go is not installed: the cluster (npm run cluster and its test) and npm test's mTLS test need it to build the server."
    return 1
  fi
  say "Building the Temporal server $TEMPORAL_SERVER_VERSION and its SQL tool with go install (first time only)..."
  local started=$SECONDS
  ( while sleep 30; do say "  still building ($((SECONDS - started))s)..."; done ) &
  local ticker=$!
  trap 'kill $ticker 2>/dev/null || true' RETURN
  rm -rf "$dir.partial"
  mkdir -p "$dir.partial"
  GOBIN="$dir.partial" GOFLAGS="${GOFLAGS:-} -buildvcs=false" go install \
    "go.temporal.io/server/cmd/server@$TEMPORAL_SERVER_VERSION" \
    "go.temporal.io/server/cmd/tools/sql@$TEMPORAL_SERVER_VERSION"
  mv "$dir.partial/server" "$dir.partial/temporal-server"
  mv "$dir.partial/sql" "$dir.partial/temporal-sql-tool"
  # The schema the tool applies ships in the server's module; copied so the cache stands alone.
  local module
  module="$(cd / && go mod download -json "go.temporal.io/server@$TEMPORAL_SERVER_VERSION" |
    sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
  mkdir -p "$dir.partial/schema"
  cp -R "$module/schema/postgresql" "$dir.partial/schema/"
  chmod -R u+w "$dir.partial/schema"
  rm -rf "$dir"
  mv "$dir.partial" "$dir"
  say "Temporal server ready: $dir ($((SECONDS - started))s)"
}

# The UI is a convenience: without it the cluster still runs, so a failed build only warns.
install_ui() {
  local dir="$cache/temporal-ui-$TEMPORAL_UI_VERSION"
  if [ -x "$dir/temporal-ui-server" ]; then return 0; fi
  command -v go >/dev/null 2>&1 || return 0
  say "Building the Temporal UI server $TEMPORAL_UI_VERSION with go install (first time only)..."
  rm -rf "$dir.partial"
  mkdir -p "$dir.partial"
  if GOBIN="$dir.partial" GOFLAGS="${GOFLAGS:-} -buildvcs=false" \
    go install "github.com/temporalio/ui-server/v2/cmd/server@$TEMPORAL_UI_VERSION"; then
    mv "$dir.partial/server" "$dir.partial/temporal-ui-server"
    rm -rf "$dir"
    mv "$dir.partial" "$dir"
    say "Temporal UI server ready: $dir/temporal-ui-server"
  else
    say "The Temporal UI server did not build: the cluster runs without its UI."
  fi
}

install_test_server() {
  local dir="$cache/temporal-test-server-$TEMPORAL_TEST_SERVER_VERSION"
  if [ -x "$dir/temporal-test-server" ]; then return 0; fi
  if ! command -v java >/dev/null 2>&1 || ! command -v mvn >/dev/null 2>&1; then
    say "Java or Maven is not installed: tests will fall back to the SDK's download of the test server."
    return 0
  fi
  say "Fetching the Java time-skipping test server $TEMPORAL_TEST_SERVER_VERSION from Maven Central..."
  rm -rf "$dir.partial"
  mkdir -p "$dir.partial"
  mvn -B -q -f "$here/test-server/pom.xml" \
    -Dtemporal.test.server.version="$TEMPORAL_TEST_SERVER_VERSION" \
    dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$dir.partial/lib"
  # @temporalio/testing runs `<path> <port>`; exec hands the process to the JVM so the SDK's
  # teardown signal reaches the server itself. Small heap and no JIT tiers keep start-up fast.
  cat > "$dir.partial/temporal-test-server" <<'LAUNCHER'
#!/bin/sh
dir="$(cd "$(dirname "$0")" && pwd)"
exec java -Xms64m -Xmx512m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xshare:auto \
  -cp "$dir/lib/*" io.temporal.testserver.TestServer "$@"
LAUNCHER
  chmod +x "$dir.partial/temporal-test-server"
  rm -rf "$dir"
  mv "$dir.partial" "$dir"
  say "Test server ready: $dir/temporal-test-server"
}

case "$what" in
  cli) install_cli ;;
  test-server) install_test_server ;;
  server) install_server; install_ui ;;
  all) install_test_server; install_cli; install_server ;;
  *) echo "usage: $0 [cli|test-server|server|all]" >&2; exit 2 ;;
esac
