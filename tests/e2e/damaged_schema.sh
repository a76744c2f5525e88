#!/usr/bin/env bash
# A negative, mislabelled or damaged schema (a table, a column or a view missing, a table that is a
# view) is refused with exit 2 by every command, naming the file, and `run` refuses it before it
# launches anything.
source "$(dirname "$0")/lib.sh"
DB="$WORK/results/mtrun.sqlite"
run_echo_campaign first

CURRENT=$(store_schema_version)

# Damaged schemas: refused by every command, `run` before it launches a trial.
damaged() {  # damaged NAME SQL MESSAGE
  local file="$WORK/$1.sqlite"
  cp "$DB" "$file"
  sqlite3 "$file" "$2" > /dev/null
  local before
  before=$(sqlite3 "$file" "select count(*) from attempts" 2>/dev/null || echo none)
  for cmd in "status" "query select(1)" "report" "rerun --failed" "run --force $WORK/exp.yaml" "doctor"; do
    capture "$MTRUN" --db "$file" $cmd
    expect_eq "$RC" 2 "$1: $cmd"
    expect_contains "$OUT" "$3" "$1: $cmd message"
  done
  expect_eq "$(sqlite3 "$file" "select count(*) from attempts" 2>/dev/null || echo none)" "$before" "$1: no attempt launched"
}
damaged negative "PRAGMA user_version = -1" "$WORK/negative.sqlite has schema version -1, which no mtrun writes; it is not a usable mtrun results database"
damaged mislabelled "PRAGMA user_version = 4" "$WORK/mislabelled.sqlite is damaged: it says schema version 4, yet it has"
damaged no_metrics "DROP TABLE metrics" "$WORK/no_metrics.sqlite is damaged: table 'metrics' of schema version $CURRENT is missing"
damaged no_column "ALTER TABLE step_metrics RENAME COLUMN value TO v" "$WORK/no_column.sqlite is damaged: table 'step_metrics' has no column 'value' (schema version $CURRENT)"
damaged no_view "DROP VIEW training" "$WORK/no_view.sqlite is damaged: view 'training' of schema version $CURRENT is missing"
damaged table_as_view "DROP TABLE leases; CREATE VIEW leases AS SELECT 1" "$WORK/table_as_view.sqlite is damaged: 'leases' is a view, where schema version $CURRENT has a table"
echo "PASS (damaged schemas refused)"
