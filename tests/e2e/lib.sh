# Shared helpers for the end-to-end tests: a scratch directory, assertions that say what broke.
set -euo pipefail
MTRUN="$MT_BUILD_DIR/bin/mtrun"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/mt-e2e.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

fail() {
  echo "FAIL: $*" >&2
  show_unsuccessful_logs >&2
  exit 1
}

# The end of the logs of the latest attempts in $DB that did not succeed: a test's scratch
# directory goes when it ends, and a failure is read from its output.
show_unsuccessful_logs() {
  [ -n "${DB:-}" ] && [ -f "$DB" ] || return 0
  local log
  sqlite3 -batch -noheader "$DB" "select log_path from attempts where state <> 'succeeded' order by id desc limit 3" \
    2>/dev/null | while IFS= read -r log; do
    [ -f "$log" ] || continue
    echo "--- the last 30 lines of $log"
    tail -n 30 "$log"
  done
}
expect_eq() { [ "$1" == "$2" ] || fail "$3: expected '$2', got '$1'"; }
expect_contains() { grep -qF -- "$2" <<<"$1" || fail "$3: output lacks '$2'. Output was:
$1"; }
sql() { sqlite3 -batch -noheader "$DB" "$1"; }
wait_for_sql() {  # wait_for_sql QUERY EXPECTED: poll the live database (WAL) until QUERY gives EXPECTED
  for _ in $(seq 1 600); do
    [ "$(sql "$1" 2>/dev/null)" == "$2" ] && return 0
    sleep 0.1
  done
  fail "timed out waiting for '$1' to be '$2'"
}

# The store schema version this mtrun writes, as schemas/store.sql declares it (its last section).
store_schema_version() { grep -o '^-- @version [0-9]*' "$MT_SOURCE_DIR/schemas/store.sql" | tail -1 | grep -o '[0-9]*$'; }

# Runs a command, storing its output in $OUT and its exit status in $RC (never aborts the test).
capture() { set +e; OUT=$("$@" 2>&1); RC=$?; set -e; }

# A campaign of two `echo` trials named NAME, written to $WORK/exp.yaml and run into $DB: the
# database the runner-only tests then damage, lock or read. No engine is launched.
run_echo_campaign() {  # run_echo_campaign NAME
  export MTENGINE=/bin/true
  cat > "$WORK/exp.yaml" <<YAML
name: $1
studies:
  - name: s
    workload: command
    launch: direct
    command: [echo, "value: 1"]
    matrix: {n: [1, 2]}
    metrics: {value: {regex: 'value: ([0-9]+)'}}
YAML
  capture "$MTRUN" run "$WORK/exp.yaml" --db "$DB"
  expect_eq "$RC" 0 "first run"
}
