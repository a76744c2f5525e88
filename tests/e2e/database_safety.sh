#!/usr/bin/env bash
# Read-only means read-only: reading commands never create, convert or migrate a database, refuse
# one that is not mtrun's (or is newer) as such and leave it as it was; `query` runs exactly one
# read (no VACUUM INTO, ATTACH or second statement), stops at --timeout and at the first Ctrl-C. An
# unusable database is exit 2 in every command. Global options work after the subcommand, and a
# renamed experiment is a campaign of its own. No engine is launched.
source "$(dirname "$0")/lib.sh"
export MTENGINE=/bin/true
DB="$WORK/results/mtrun.sqlite"
CURRENT=$(store_schema_version)
cat > "$WORK/exp.yaml" <<'YAML'
name: first
studies:
  - name: s
    workload: command
    launch: direct
    command: [echo, "value: 1"]
    matrix: {n: [1, 2]}
    metrics: {value: {regex: 'value: ([0-9]+)'}}
YAML
capture "$MTRUN" run "$WORK/exp.yaml" --db "$DB"   # --db after the subcommand
expect_eq "$RC" 0 "run with --db after the subcommand"
expect_eq "$(sql 'select count(*) from trials')" 2 "trials stored in --db"
capture "$MTRUN" status --db "$DB"
expect_eq "$RC" 0 "status with --db after the subcommand"

# query: one statement, reads only.
capture "$MTRUN" query "VACUUM INTO '$WORK/copy.sqlite'" --db "$DB"
expect_eq "$RC" 2 "VACUUM INTO refused"
expect_eq "$OUT" "mtrun: mtrun query is read-only; statements that change the database are refused (not a read: VACUUM INTO '$WORK/copy.sqlite')" "VACUUM INTO message"
[ ! -e "$WORK/copy.sqlite" ] || fail "VACUUM INTO created a file"
capture "$MTRUN" --db "$DB" query "ATTACH '$WORK/other.sqlite' AS o"
expect_eq "$RC" 2 "ATTACH refused"
[ ! -e "$WORK/other.sqlite" ] || fail "ATTACH created a file"
capture "$MTRUN" --db "$DB" query "select 1; drop table trials"
expect_eq "$RC" 2 "a second statement is an error"
expect_eq "$OUT" "mtrun: mtrun query takes exactly one SQL statement; remove what follows the first: 'drop table trials'" "second statement message"
expect_eq "$(sql 'select count(*) from trials')" 2 "trials still there"
capture "$MTRUN" --db "$DB" query "pragma user_version = 7"
expect_eq "$RC" 2 "a pragma that writes is refused"
capture "$MTRUN" --db "$DB" query --csv "select count(*) as n from trials; -- a comment is not a statement"
expect_eq "$RC$OUT" "0n
2" "one statement and a comment"
capture "$MTRUN" --db "$DB" query --csv "pragma user_version"
expect_eq "$OUT" "user_version
$CURRENT" "reading pragma"
# journal_mode and wal_checkpoint, even without a value, are writes to SQLite (the second does write).
for pragma in "journal_mode" "journal_mode = delete" "wal_checkpoint"; do
  capture "$MTRUN" --db "$DB" query "pragma $pragma"
  expect_eq "$RC" 2 "pragma $pragma refused"
done
capture "$MTRUN" --db "$DB" query --csv "pragma integrity_check"
expect_eq "$RC$OUT" "0integrity_check
ok" "a check that reads"
# SQL that prepares but fails as it runs: the query failed (1), not bad input.
capture "$MTRUN" --db "$DB" query "select abs(-9223372036854775807 - 1)"
expect_eq "$RC$OUT" "1mtrun: query failed: SQL error: integer overflow" "a query that fails as it runs"

RUNAWAY="with recursive r(i) as (select 1 union all select i + 1 from r) select count(*) from r"
capture "$MTRUN" --db "$DB" query --timeout 0.5 "$RUNAWAY"
expect_eq "$RC" 124 "a query past --timeout"
expect_eq "$OUT" "mtrun: query stopped at its time limit of 0.5 s (--timeout)" "timeout message"
"$MTRUN" --db "$DB" query "$RUNAWAY" > "$WORK/q.log" 2>&1 &
QUERY=$!
sleep 0.5
kill -INT $QUERY
set +e; wait $QUERY; RC=$?; set -e
expect_eq "$RC" 130 "the first Ctrl-C stops a query"
expect_eq "$(cat "$WORK/q.log")" "mtrun: query interrupted" "interrupt message"
echo "PASS (query)"

# A database of an older schema (version 10: attempts without what was done before the launch,
# conditions without where the job's ranks ran, nor where the looks were taken, nor the core round
# trips, the conditions view without any of them): a query that
# needs what came since says why it is missing; run migrates the file and the query works.
cp "$DB" "$WORK/older.sqlite"
sqlite3 "$WORK/older.sqlite" "DROP VIEW conditions; ALTER TABLE attempts DROP COLUMN settle_s;
  ALTER TABLE attempts DROP COLUMN quiet_wait_s; ALTER TABLE attempts DROP COLUMN quiet_found;
  ALTER TABLE attempts DROP COLUMN quiet_where; ALTER TABLE attempt_conditions DROP COLUMN job_ranks_here;
  ALTER TABLE attempt_conditions DROP COLUMN core_round_trip_ns_before;
  ALTER TABLE attempt_conditions DROP COLUMN core_round_trip_ns_after;
  CREATE VIEW conditions AS SELECT t.study FROM trials t; PRAGMA user_version=10" > /dev/null
capture "$MTRUN" --db "$WORK/older.sqlite" query "select settle_s from conditions"
expect_eq "$RC" 2 "a column newer than the database"
expect_contains "$OUT" "no such column: settle_s (this database has schema version 10, this mtrun's is $CURRENT" \
  "the older schema is named"
capture "$MTRUN" --db "$WORK/older.sqlite" query "selec 1"
expect_eq "$RC$OUT" "2mtrun: query failed: near \"selec\": syntax error" "a syntax error says nothing of the schema"
# What would write but is only asked to preview, or is refused, leaves the older file unmigrated.
OLDER_ID=$(sqlite3 "$WORK/older.sqlite" "select id from campaigns limit 1")
for cmd in "delete $OLDER_ID --dry-run" "delete $OLDER_ID" "baseline set main zzzz" "baseline set b@d $OLDER_ID" \
           "baseline delete none"; do
  # shellcheck disable=SC2086 # the words of one command
  capture "$MTRUN" --db "$WORK/older.sqlite" $cmd
  expect_eq "$(sqlite3 "$WORK/older.sqlite" 'PRAGMA user_version')" 10 "$cmd left the older database as it was ($OUT)"
done
capture "$MTRUN" --db "$WORK/older.sqlite" delete "$OLDER_ID" --dry-run
expect_eq "$RC" 0 "delete --dry-run on an older database"
expect_contains "$OUT" "would delete campaign $OLDER_ID of first" "the preview on an older database"
capture "$MTRUN" --db "$WORK/older.sqlite" run "$WORK/exp.yaml"
expect_eq "$RC" 0 "run on the older database: $OUT"
expect_eq "$(sqlite3 "$WORK/older.sqlite" 'PRAGMA user_version')" "$CURRENT" "migrated by run"
capture "$MTRUN" --db "$WORK/older.sqlite" query "select count(settle_s), count(job_ranks_here), count(quiet_where) from conditions"
expect_eq "$RC" 0 "the query after the migration: $OUT"

# A database from a newer mtrun, in rollback-journal mode: refused, not touched (not even by `run`).
cp "$DB" "$WORK/newer.sqlite"
sqlite3 "$WORK/newer.sqlite" "PRAGMA journal_mode=DELETE; PRAGMA user_version=99" > /dev/null
BEFORE=$(sha256sum < "$WORK/newer.sqlite")
for cmd in "status" "query select(1)" "report" "rerun --failed" "run $WORK/exp.yaml" "compare a b" "baseline list" \
           "baseline set x a" "history first"; do
  capture "$MTRUN" --db "$WORK/newer.sqlite" $cmd
  expect_eq "$RC" 2 "$cmd on a newer database"
  expect_contains "$OUT" "has schema version 99, newer than this mtrun understands ($CURRENT)" "$cmd message"
done
capture "$MTRUN" --db "$WORK/newer.sqlite" doctor
expect_eq "$RC" 2 "doctor on a newer database"
expect_eq "$(sha256sum < "$WORK/newer.sqlite")" "$BEFORE" "the newer database is unchanged"
expect_eq "$(sqlite3 "$WORK/newer.sqlite" 'PRAGMA journal_mode')" delete "not switched to WAL"
[ ! -e "$WORK/newer.sqlite-wal" ] || fail "a -wal file appeared"

# An SQLite file that is not mtrun's, and a file that is not SQLite at all.
sqlite3 "$WORK/notes.sqlite" "create table notes (t text); insert into notes values ('mine')"
echo "not a database, just text that goes on for a while to fill the header" > "$WORK/text.sqlite"
BEFORE=$(sha256sum "$WORK/notes.sqlite" "$WORK/text.sqlite")
for cmd in "status" "query select(1)" "report" "rerun --failed" "run $WORK/exp.yaml" "doctor"; do
  capture "$MTRUN" --db "$WORK/notes.sqlite" $cmd
  expect_eq "$RC" 2 "$cmd on a foreign SQLite database"
  expect_contains "$OUT" "$WORK/notes.sqlite is not an mtrun results database" "$cmd message"
  capture "$MTRUN" --db "$WORK/text.sqlite" $cmd
  expect_eq "$RC" 2 "$cmd on a text file"
  expect_contains "$OUT" "$WORK/text.sqlite is not an SQLite database" "$cmd message"
done
expect_eq "$(sha256sum "$WORK/notes.sqlite" "$WORK/text.sqlite")" "$BEFORE" "foreign files unchanged"
expect_eq "$(sqlite3 "$WORK/notes.sqlite" "select group_concat(name) from sqlite_master")" notes "no tables added"
expect_eq "$(sqlite3 "$WORK/notes.sqlite" 'PRAGMA journal_mode')" delete "foreign database not switched to WAL"

# A damaged database is named: --db may have been left at its default.
cp "$DB" "$WORK/damaged.sqlite"
PAGE=$(sqlite3 "$WORK/damaged.sqlite" "pragma page_size")
ROOT=$(sqlite3 "$WORK/damaged.sqlite" "select rootpage from sqlite_master where name = 'trials'")
python3 -c "import sys; f = open(sys.argv[1], 'r+b'); f.seek((int(sys.argv[3]) - 1) * int(sys.argv[2])); f.write(b'\xff' * int(sys.argv[2]))" \
  "$WORK/damaged.sqlite" "$PAGE" "$ROOT"
capture "$MTRUN" --db "$WORK/damaged.sqlite" status
expect_eq "$RC" 2 "status on a damaged database"
expect_contains "$OUT" "mtrun: database error in $WORK/damaged.sqlite: SQL error: database disk image is malformed" "the damaged file named"
# A write-ahead log copied in with another database reads as valid to SQLite, which replays it onto
# this one: the refusal names the log as what to move aside.
sqlite3 "$DB" "pragma wal_checkpoint(TRUNCATE)" > /dev/null
cp "$DB" "$WORK/foreign_wal.sqlite"
python3 - "$WORK/other.sqlite" "$WORK/foreign_wal.sqlite-wal" <<'PY'
import shutil, sqlite3, sys
other = sqlite3.connect(sys.argv[1])
other.execute("pragma journal_mode=wal")
other.execute("pragma wal_autocheckpoint=0")
other.execute("create table t(x)")
other.commit()
shutil.copy(sys.argv[1] + "-wal", sys.argv[2])  # while it is open: closing checkpoints it away
other.close()
PY
capture "$MTRUN" --db "$WORK/foreign_wal.sqlite" status
expect_eq "$RC" 2 "status with another database's -wal"
expect_contains "$OUT" "(if $WORK/foreign_wal.sqlite-wal is not this database's own log, as one copied in with another database, move it aside and try again)" \
  "the log named"

# A directory given for the database, or a database whose folder cannot be made: exit 2, named.
for cmd in "status" "run $WORK/exp.yaml"; do
  capture "$MTRUN" --db "$WORK" $cmd
  expect_eq "$RC" 2 "$cmd on a directory"
  expect_contains "$OUT" "$WORK is a directory; --db names the database file" "$cmd on a directory message"
done
capture "$MTRUN" --db "$WORK/text.sqlite/mtrun.sqlite" run "$WORK/exp.yaml"
expect_eq "$RC" 2 "a database inside a file"
expect_contains "$OUT" "cannot create the folder of the database $WORK/text.sqlite/mtrun.sqlite: Not a directory" "folder message"
# A device or a FIFO given for the database: named as such (SQLite would fail on its I/O with exit 1,
# after creating a journal beside it).
mkfifo "$WORK/fifo.sqlite"
for db in /dev/null "$WORK/fifo.sqlite"; do
  for cmd in "run $WORK/exp.yaml" "status" "baseline set x abcd"; do
    capture "$MTRUN" --db "$db" $cmd
    expect_eq "$RC" 2 "$cmd on $db"
    expect_contains "$OUT" "$db is a " "$cmd on $db: what it is"
    expect_contains "$OUT" ", not a file; --db names the database file" "$cmd on $db: said"
  done
  [ ! -e "$db-journal" ] && [ ! -e "$db-wal" ] || fail "a journal was created beside $db"
done
# doctor says so before a run fails on it: a database under a file, or in a folder nothing can be created in.
capture "$MTRUN" --db "$WORK/text.sqlite/x.sqlite" doctor
expect_eq "$RC" 2 "doctor on a database under a file"
expect_contains "$OUT" "$WORK/text.sqlite/x.sqlite cannot be created: $WORK/text.sqlite is not a folder; pass --db" "doctor names the file in the way"
capture "$MTRUN" --db /proc/x.sqlite doctor
expect_eq "$RC" 2 "doctor on a database in /proc"
expect_contains "$OUT" "/proc/x.sqlite does not exist and /proc is not writable; pass --db" "doctor tries the folder"

# A missing database: reading commands say so (exit 2) and create nothing; doctor creates nothing.
mkdir "$WORK/empty"
cd "$WORK/empty"
for cmd in "status" "query select(1)" "report" "rerun --failed" "baseline set main abcd" "baseline delete main" \
           "delete abcd --dry-run" "delete abcd --yes"; do
  capture "$MTRUN" $cmd
  expect_eq "$RC" 2 "$cmd without a database"
  expect_contains "$OUT" "no database at results/mtrun.sqlite (run an experiment first, or pass --db)" "$cmd message"
done
capture "$MTRUN" doctor
expect_contains "$OUT" "results/mtrun.sqlite does not exist yet; the first run creates it" "doctor on no database"
expect_eq "$(ls -A "$WORK/empty")" "" "nothing created in the working directory"
cd "$WORK"

# A WAL database in a directory the reader cannot write (as root, the reader is nobody): read
# without its WAL index, while `run` says it cannot write there.
as_reader() { if [ "$(id -u)" == 0 ]; then runuser -u nobody -- "$@"; else "$@"; fi; }
mkdir "$WORK/locked"
cp "$DB" "$WORK/locked/mtrun.sqlite"
sqlite3 "$WORK/locked/mtrun.sqlite" "PRAGMA journal_mode=WAL" > /dev/null
chmod 755 "$WORK"
chmod 555 "$WORK/locked"
chmod 444 "$WORK/locked/mtrun.sqlite"
capture as_reader "$MTRUN" --db "$WORK/locked/mtrun.sqlite" query --csv "select count(*) as n from trials"
expect_eq "$RC$OUT" "0n
2" "query of a WAL database in a read-only directory"
capture as_reader "$MTRUN" --db "$WORK/locked/mtrun.sqlite" status
expect_eq "$RC" 0 "status of a WAL database in a read-only directory"
capture as_reader "$MTRUN" --db "$WORK/locked/mtrun.sqlite" run "$WORK/exp.yaml"
expect_eq "$RC" 2 "run on a database it cannot write"
expect_contains "$OUT" "$WORK/locked/mtrun.sqlite is read-only, and this command writes to it" "read-only database message"
# A database it may write in a folder it may not (SQLite keeps the log beside it), or a new one
# there: the folder is named, not "unable to open database file".
chmod 755 "$WORK/locked"
cp "$DB" "$WORK/locked/writable.sqlite"
chmod 666 "$WORK/locked/writable.sqlite"
chmod 555 "$WORK/locked"
for db in writable new; do
  capture as_reader "$MTRUN" --db "$WORK/locked/$db.sqlite" run "$WORK/exp.yaml"
  expect_eq "$RC" 2 "run on a $db database in a folder it cannot write"
  expect_contains "$OUT" "cannot write the database $WORK/locked/$db.sqlite: its folder $WORK/locked is not writable" \
    "the folder named ($db)"
done
[ ! -e "$WORK/locked/new.sqlite" ] || fail "a refused run created a database"
chmod 755 "$WORK/locked"

# An older (version 1) database is read as it is: status does not migrate it.
cp "$DB" "$WORK/v1.sqlite"
sqlite3 "$WORK/v1.sqlite" "PRAGMA journal_mode=DELETE; DROP VIEW restarts; DROP TABLE launches; ALTER TABLE provenance DROP COLUMN source_repository; ALTER TABLE provenance DROP COLUMN build_tree_dirty; DROP TABLE baselines; DROP VIEW conditions; DROP TABLE attempt_conditions; ALTER TABLE campaigns DROP COLUMN run_order; ALTER TABLE campaigns DROP COLUMN seed; ALTER TABLE campaigns DROP COLUMN measurement; DROP TABLE attempt_files; DROP VIEW comm_rows; DROP TABLE result_rows; DROP VIEW chain_stages; DROP TABLE stages; DROP TABLE leases; PRAGMA user_version=1" > /dev/null
BEFORE=$(sha256sum < "$WORK/v1.sqlite")
capture "$MTRUN" --db "$WORK/v1.sqlite" status
expect_eq "$RC" 0 "status on a version 1 database"
expect_eq "$(sha256sum < "$WORK/v1.sqlite")" "$BEFORE" "version 1 database unchanged by status"
# A version 6 database (before baselines and the repository in provenance): listing, comparing,
# history and status read it as it is.
cp "$DB" "$WORK/v6.sqlite"
sed 's/\[1, 2\]/[1, 3]/' "$WORK/exp.yaml" > "$WORK/exp_b.yaml"  # a second campaign to compare with
capture "$MTRUN" --db "$WORK/v6.sqlite" run "$WORK/exp_b.yaml"
expect_eq "$RC" 0 "a second campaign: $OUT"
sqlite3 "$WORK/v6.sqlite" "PRAGMA journal_mode=DELETE; DROP VIEW restarts; DROP TABLE launches; ALTER TABLE provenance DROP COLUMN source_repository; ALTER TABLE provenance DROP COLUMN build_tree_dirty; DROP TABLE baselines; PRAGMA user_version=6" > /dev/null
BEFORE=$(sha256sum < "$WORK/v6.sqlite")
CAMPAIGN=$(sql "select id from campaigns limit 1")
LATER=$(sqlite3 "$WORK/v6.sqlite" "select id from campaigns where id <> '$CAMPAIGN'")
capture "$MTRUN" --db "$WORK/v6.sqlite" baseline list
expect_eq "$RC$OUT" "0no baselines yet; set one with \`mtrun baseline set NAME CAMPAIGN\`" "baseline list on a version 6 database"
capture "$MTRUN" --db "$WORK/v6.sqlite" compare --baseline main "$CAMPAIGN"
expect_eq "$RC" 2 "compare --baseline on a version 6 database"
expect_contains "$OUT" "no baseline 'main' in the database (there are none" "no baselines before version 7"
capture "$MTRUN" --db "$WORK/v6.sqlite" compare "$CAMPAIGN" "$LATER"
expect_eq "$RC" 0 "compare on a version 6 database: $OUT"
capture "$MTRUN" --db "$WORK/v6.sqlite" history first
expect_eq "$RC" 0 "history on a version 6 database"
capture "$MTRUN" --db "$WORK/v6.sqlite" status --provenance
expect_eq "$RC" 0 "status --provenance before the repository was recorded (version 8)"
expect_eq "$(sha256sum < "$WORK/v6.sqlite")" "$BEFORE" "version 6 database unchanged by reading commands"
echo "PASS (read-only)"

# Renaming an experiment starts a campaign of its own, found by its new name.
sed -i 's/^name: first/name: renamed/' "$WORK/exp.yaml"
capture "$MTRUN" --db "$DB" run "$WORK/exp.yaml"
expect_eq "$RC" 0 "run of the renamed experiment"
expect_contains "$OUT" "2 trials, 2 to run" "the renamed experiment runs its trials in a new campaign"
expect_eq "$(sql "select group_concat(experiment, ',') from (select experiment from campaigns order by experiment)")" "first,renamed" "campaigns"
capture "$MTRUN" --db "$DB" report --experiment renamed
expect_eq "$RC" 0 "report --experiment with the new name"
expect_contains "$OUT" "$(sql "select id from campaigns where experiment = 'renamed'")" "the report is of the renamed campaign"
echo "PASS (global options, renamed experiment)"

# A writer waits for another connection's lock (a VACUUM, a shell's open transaction) rather than
# lose what it ran: a trial that finishes while a transaction holds the database for 15 s (past
# SQLite's usual 10 s) is recorded, and the wait is said. The lock is taken once the trial runs, so
# the write that waits is the one that records it.
cat > "$WORK/held.yaml" <<YAML
name: held
studies:
  - name: s
    workload: command
    launch: direct
    command: [sh, -c, "touch $WORK/held.started; sleep 1; echo 'value: 7'"]
    metrics: {value: {regex: 'value: ([0-9]+)'}}
YAML
"$MTRUN" --db "$DB" run "$WORK/held.yaml" > "$WORK/held.out" 2>&1 &
RUNNER=$!
for _ in $(seq 1 300); do [ -e "$WORK/held.started" ] && break; sleep 0.1; done
[ -e "$WORK/held.started" ] || fail "the held trial never started: $(cat "$WORK/held.out")"
(echo ".timeout 5000"; echo "BEGIN EXCLUSIVE; SELECT 1;"; sleep 15; echo "COMMIT;") | sqlite3 "$DB" > /dev/null
set +e; wait $RUNNER; RC=$?; set -e
OUT=$(cat "$WORK/held.out")
expect_eq "$RC" 0 "a run while another connection held the database: $OUT"
expect_contains "$OUT" "mtrun: waiting for $DB: another connection holds its lock" "the wait said"
expect_eq "$(sql "select a.state || ' ' || m.value from metrics m join attempts a on a.id = m.attempt_id
  join trials t on t.id = a.trial_id join campaigns c on c.id = t.campaign_id
  where c.experiment = 'held' and m.name = 'value'")" "succeeded 7.0" "the measurement recorded"
echo "PASS (a writer waits for the lock)"
