#!/bin/sh
# The cluster's two databases, by the Temporal server's own SQL tool: created and set up the first
# time, then brought up to the schema this server version needs (update-schema applies only the
# versions a database lacks). Run by `npm run cluster` (src/dev/temporal-cluster.ts) and by compose's
# one-shot temporal-schema service (temporalio/admin-tools), on the same files.
# Environment: SQL_PLUGIN (postgres12), SQL_HOST, SQL_PORT, SQL_USER, SQL_PASSWORD (read by the tool);
# TEMPORAL_DB, TEMPORAL_VISIBILITY_DB (temporal, temporal_visibility); TEMPORAL_SQL_TOOL and
# TEMPORAL_SCHEMA_DIR (the tool and schema/postgresql/v12, where admin-tools keeps them by default).
set -eu
tool="${TEMPORAL_SQL_TOOL:-temporal-sql-tool}"
schema="${TEMPORAL_SCHEMA_DIR:-/etc/temporal/schema/postgresql/v12}"

database() {
  db="$1"
  dir="$2"
  if said="$("$tool" --db "$db" create-database 2>&1)"; then
    "$tool" --db "$db" setup-schema -v 0.0
  else
    case "$said" in
      *"already exists"*) ;;
      *) echo "$said" >&2; exit 1 ;;
    esac
  fi
  "$tool" --db "$db" update-schema -d "$schema/$dir/versioned"
}

database "${TEMPORAL_DB:-temporal}" temporal
database "${TEMPORAL_VISIBILITY_DB:-temporal_visibility}" visibility
