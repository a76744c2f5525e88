#!/usr/bin/env bash
# The commands that look into what ran, without running anything: `mtrun --version` and the usage
# line name the program; an unknown option is named with what was meant; `campaigns` lists every campaign (state, trial counts, when, revision) as
# a table, CSV or JSON; `show TRIAL` prints one trial (parameters, attempts, conditions, metrics,
# per-step series, --steps-csv); a trial past its time limit is told so with the limit; a failure
# whose message names a rank has that rank on record; `doctor` quotes a program that is there but
# fails; `look --json` carries the cores and the verdict. No engine is launched.
source "$(dirname "$0")/lib.sh"
DB="$WORK/results/mtrun.sqlite"

capture "$MTRUN" --version
expect_eq "$RC" 0 "--version"
expect_eq "$(head -n 1 <<<"$OUT")" "mtrun 0.1.0" "version line"
grep -qE '^  revision   ([0-9a-f]{40}|unknown)( \(dirty tree\))?$' <<<"$OUT" || fail "no build revision: $OUT"
CURRENT=$(store_schema_version)
expect_contains "$OUT" "  database   schema version $CURRENT" "schema version"
capture "$MTRUN" --help
expect_eq "$RC" 0 "--help"
expect_contains "$OUT" "Usage: mtrun [OPTIONS] SUBCOMMAND" "usage names the program"
expect_contains "$OUT" "campaigns " "campaigns listed"
expect_contains "$OUT" "show " "show listed"
capture "$MTRUN" show --help
expect_contains "$OUT" "Usage: mtrun show [OPTIONS] TRIAL" "subcommand usage"
# An option or command that does not exist is named, with what was most likely meant; stray words in order.
capture "$MTRUN" run "$WORK/none.yaml" --wait-quite 5
expect_eq "$RC" 2 "unknown option"
expect_eq "$OUT" "mtrun: unknown option '--wait-quite' for \`mtrun run\` (did you mean '--wait-quiet'?); \`mtrun run --help\` lists its options" "unknown option named"
capture "$MTRUN" report --campaing=abc
expect_eq "$RC" 2 "unknown option with a value"
expect_contains "$OUT" "unknown option '--campaing' for \`mtrun report\` (did you mean '--campaign'?)" "the option's name without its value"
capture "$MTRUN" status --database "$WORK/x.sqlite"
expect_eq "$RC" 2 "an option written out"
expect_contains "$OUT" "unknown option '--database' for \`mtrun status\` (did you mean '--db'?)" "the abbreviation that is its name"
capture "$MTRUN" campaigns --no-such-thing
expect_eq "$OUT" "mtrun: unknown option '--no-such-thing' for \`mtrun campaigns\`; \`mtrun campaigns --help\` lists its options" "nothing close"
capture "$MTRUN" status a b c
expect_eq "$RC" 2 "stray words"
expect_eq "$OUT" "mtrun: \`mtrun status\` does not take 'a', 'b', 'c'; \`mtrun status --help\` says what it takes" "stray words in order"
capture "$MTRUN" reprot
expect_eq "$RC" 2 "unknown command"
expect_eq "$OUT" "mtrun: unknown command 'reprot' (did you mean 'report'?); \`mtrun --help\` lists the commands (and \`mtrun FILE\` runs an experiment file)" "unknown command named"
# A command made of commands, given none or a mistyped one; a missing argument names its command.
capture "$MTRUN" baseline
expect_eq "$RC" 2 "baseline without its command"
expect_eq "$OUT" "mtrun: \`mtrun baseline\` needs one of its commands: set, list, delete; \`mtrun baseline --help\` says what each does" "baseline's commands listed"
capture "$MTRUN" baseline sett x y
expect_eq "$RC" 2 "mistyped baseline command"
expect_eq "$OUT" "mtrun: unknown command 'sett' for \`mtrun baseline\` (did you mean 'set'?); its commands: set, list, delete" "baseline command suggested"
capture "$MTRUN" baseline set --nme x
expect_contains "$OUT" "unknown option '--nme' for \`mtrun baseline set\`" "the nested command named"
capture "$MTRUN" show
expect_eq "$RC" 2 "show without a trial"
expect_eq "$OUT" "mtrun: \`mtrun show\`: TRIAL is required; \`mtrun show --help\` says what it takes" "missing argument"
capture "$MTRUN"
expect_eq "$RC" 2 "mtrun alone"
expect_eq "$OUT" "mtrun: \`mtrun\` needs a command, or an experiment file to run (\`mtrun FILE\`); \`mtrun --help\` lists the commands" "mtrun alone says what it takes"
capture "$MTRUN" --no-such
expect_eq "$OUT" "mtrun: unknown option '--no-such'; \`mtrun --help\` lists the options and commands" "unknown option before any command"
# A mistyped option before the command is mtrun's, even when a file follows it (not `mtrun run FILE`).
touch "$WORK/there.sqlite"
capture "$MTRUN" --dbb "$WORK/there.sqlite" campaigns
expect_eq "$RC" 2 "a mistyped global option"
expect_eq "$OUT" "mtrun: unknown option '--dbb' (did you mean '--db'?); \`mtrun --help\` lists the options and commands" "the global option named"
capture "$MTRUN" -db "$WORK/there.sqlite" campaigns
expect_eq "$RC" 2 "a global option with one dash"
expect_eq "$OUT" "mtrun: unknown option '-db' (did you mean '--db'?); \`mtrun --help\` lists the options and commands" "one dash named"
echo "PASS (version and usage)"

capture "$MTRUN" --db "$DB" campaigns
expect_eq "$RC" 2 "campaigns without a database"
expect_contains "$OUT" "mtrun: " "campaigns without a database says why"

run_echo_campaign echoes
# One trial that fails, its reason in the engine's words; one that outlives its 1 s limit; one
# that writes per-step times (two ranks, three steps) to its result file.
cat > "$WORK/steps.sh" <<'SH'
printf '{"per_step": {"step_time_ms": [[10, 11, 30], [12, 11, 12]]}}' > "$1"
SH
cat > "$WORK/mixed.yaml" <<YAML
name: mixed
studies:
  - name: broken
    workload: command
    launch: direct
    command: [sh, -c, "echo 'mtengine: rank 1 (node7): the all-reduce broke' >&2; exit 3"]
  - name: slow
    workload: command
    launch: direct
    timeout_s: 1
    command: [sleep, "30"]
  - name: stepped
    workload: command
    launch: direct
    command: [sh, "$WORK/steps.sh", "{result_file}"]
YAML
capture "$MTRUN" run "$WORK/mixed.yaml" --db "$DB"
expect_eq "$RC" 1 "a campaign with failures"
expect_contains "$OUT" "trial exceeded its 1 s timeout (timeout_s); every rank was killed" "the timeout names its limit"
expect_contains "$OUT" "exit 3, rank 1: mtengine: rank 1 (node7): the all-reduce broke" "the failing rank is known"
expect_eq "$(sql "select error_rank from attempts a join trials t on t.id = a.trial_id where t.study = 'broken'")" 1 \
  "the failing rank is recorded"
echo "PASS (timeout and failing rank)"

capture "$MTRUN" --db "$DB" campaigns
expect_eq "$RC" 0 "campaigns"
expect_eq "$(wc -l <<<"$OUT")" 4 "header, rule, a row per campaign"
expect_eq "$(head -n 1 <<<"$OUT" | tr -s ' ')" \
  "campaign experiment state trials succeeded failed unfinished started finished revision run_files_mib" "campaigns header"
expect_eq "$(grep echoes <<<"$OUT" | awk '{print $3, $4, $5, $6, $7}')" "succeeded 2 2 0 0" "the echo campaign"
expect_eq "$(grep mixed <<<"$OUT" | awk '{print $3, $4, $5, $6, $7}')" "failed 3 1 2 0" "the mixed campaign"
ECHOES=$(sql "select id from campaigns where experiment = 'echoes'")
set +e
"$MTRUN" --db "$DB" campaigns --experiment echoess > "$WORK/nosuch.out" 2> "$WORK/nosuch.err"
RC=$?
set -e
expect_eq "$RC" 2 "campaigns of an experiment the database does not hold"
expect_eq "$(cat "$WORK/nosuch.out")" "" "nothing listed for it"
expect_contains "$(cat "$WORK/nosuch.err")" "mtrun: no campaign of experiment 'echoess' in the database (did you mean 'echoes'?)" \
  "the refusal says what was meant, on stderr"
expect_eq "$(sed -n 3p <<<"$OUT" | awk '{print $1}')" "$ECHOES" "oldest first"
capture "$MTRUN" --db "$DB" campaigns --experiment mixed --json
expect_eq "$RC" 0 "campaigns --json"
python3 - "$OUT" "$(sql "select source_revision from campaigns where experiment = 'mixed'")" <<'PY' || fail "campaigns --json: $OUT"
import json, sys
rows = json.loads(sys.argv[1])
assert len(rows) == 1, rows
row = rows[0]
assert row["experiment"] == "mixed" and row["state"] == "failed", row
assert (row["trials"], row["succeeded"], row["failed"], row["unfinished"]) == (3, 1, 2, 0), row
assert all(type(row[k]) is int for k in ("trials", "succeeded", "failed", "unfinished")), row
assert row["revision"] == sys.argv[2] and row["started"] <= row["finished"], row
assert type(row["run_files_mib"]) is float and row["run_files_mib"] > 0, row  # its logs and results
PY
# A campaign whose run directory is gone says so (null), and sizes follow the files.
MIXED=$(sql "select id from campaigns where experiment = 'mixed'")
head -c 3145728 /dev/zero > "$WORK/results/runs/mtrun.sqlite/$ECHOES/padding"
mv "$WORK/results/runs/mtrun.sqlite/$MIXED" "$WORK/mixed_runs"
capture "$MTRUN" --db "$DB" campaigns --csv
expect_eq "$(grep "^$MIXED," <<<"$OUT" | awk -F, '{print $NF}')" "" "no run directory: null"
python3 - "$(grep "^$ECHOES," <<<"$OUT" | awk -F, '{print $NF}')" <<'PY' || fail "campaigns --csv: $OUT"
import sys
assert 3.0 <= float(sys.argv[1]) < 3.1, sys.argv[1]  # 3 MiB of padding and a few KiB of logs
PY
mv "$WORK/mixed_runs" "$WORK/results/runs/mtrun.sqlite/$MIXED"
capture "$MTRUN" --db "$DB" campaigns --csv
expect_eq "$(head -n 1 <<<"$OUT")" "campaign,experiment,state,trials,succeeded,failed,unfinished,started,finished,revision,run_files_mib" \
  "campaigns --csv header"
expect_eq "$(grep -c ',echoes,succeeded,2,2,0,0,' <<<"$OUT")" 1 "campaigns --csv row"
capture "$MTRUN" --db "$DB" campaigns --experiment nothing
expect_eq "$RC$OUT" "2mtrun: no campaign of experiment 'nothing' in the database; it holds campaigns of: echoes, mixed" \
  "no such experiment, as report says it"
echo "PASS (campaigns)"

ID=$(sql "select identity from trials where study = 'stepped'")
capture "$MTRUN" --db "$DB" show "${ID:0:8}" --steps-csv "$WORK/steps.csv"
expect_eq "$RC" 0 "show"
expect_contains "$OUT" "trial $ID  study stepped  workload command  ranks 1  repeat 0" "show: the trial"
expect_contains "$OUT" "campaign $(sql "select id from campaigns where experiment = 'mixed'")  experiment mixed" "show: its campaign"
expect_contains "$OUT" "parameters" "show: parameters"
expect_eq "$(grep -A3 '^attempts' <<<"$OUT" | tail -n 1 | awk '{print $1, $2, $3}')" "1 succeeded 0" "show: the attempt"
grep -qE '^conditions of attempt 1: (quiet|disturbed)$' <<<"$OUT" || fail "show: no verdict: $OUT"
expect_contains "$OUT" "other processes' CPU" "show: readings"
expect_eq "$(grep '^step_time_ms (slowest rank)' <<<"$OUT" | tr -s ' ')" "step_time_ms (slowest rank) 3 11 12 30 ▁▁█" \
  "show: per-step sparkline"
expect_contains "$OUT" "per-step values of attempt 1 written to $WORK/steps.csv" "show: CSV written"
expect_eq "$(cat "$WORK/steps.csv")" "series,rank,step,value
step_time_ms,0,0,10
step_time_ms,0,1,11
step_time_ms,0,2,30
step_time_ms,1,0,12
step_time_ms,1,1,11
step_time_ms,1,2,12" "show --steps-csv"
ECHO_ID=$(sql "select identity from trials where study = 's' order by ordinal limit 1")
capture "$MTRUN" --db "$DB" show "$ECHO_ID"
expect_contains "$OUT" "value       1" "show: a metric"
expect_eq "$(grep -E '^n +1 +axis$' <<<"$OUT" | wc -l)" 1 "show: an axis parameter"
BROKEN=$(sql "select identity from trials where study = 'broken'")
capture "$MTRUN" --db "$DB" show "${BROKEN:0:12}"
expect_eq "$(grep -A3 '^attempts' <<<"$OUT" | tail -n 1 | awk '{print $2, $3, $5}')" "failed 3 1" "show: exit and rank"
capture "$MTRUN" --db "$DB" show zzzz
expect_eq "$RC" 2 "show: no such trial"
expect_eq "$OUT" "mtrun: no trial 'zzzz' in the database" "show: no such trial message"
capture "$MTRUN" --db "$DB" show "$ECHO_ID" --attempt 2
expect_eq "$RC" 2 "show: no such attempt"
expect_contains "$OUT" "mtrun: trial $ECHO_ID has no attempt 2" "show: no such attempt message"
# A trial whose measured steps got faster: 2 warmup steps, then 3 at 50 ms and 9 at 40 ms.
cat > "$WORK/warming.sh" <<'SH'
printf '{"warmup_steps": 2, "steps": 12, "per_step": {"step_time_ms": [[90, 60, 50, 50, 50, 40, 40, 40, 40, 40, 40, 40, 40, 40]]}}' > "$1"
SH
cat > "$WORK/warming.yaml" <<YAML
name: warming
studies:
  - {name: w, workload: command, launch: direct, command: [sh, "$WORK/warming.sh", "{result_file}"]}
YAML
capture "$MTRUN" run "$WORK/warming.yaml" --db "$DB"
expect_eq "$RC" 0 "the warming trial: $OUT"
capture "$MTRUN" --db "$DB" show "$(sql "select identity from trials where study = 'w'")"
expect_contains "$OUT" "(the first 2 steps are warmup, not measured)" "show: warmup told apart"
expect_contains "$OUT" "step time drift: the last half of the measured steps 20.0 % faster than the first quarter" \
  "show: the drift over the measured steps"
echo "PASS (show)"

# doctor tells a program that is missing from one that is there but fails, in its own words: an
# srun without a Slurm configuration is not "srun not found".
mkdir -p "$WORK/bin"
printf '#!/bin/sh\necho "srun: fatal: Could not establish a configuration source" >&2\nexit 1\n' > "$WORK/bin/srun"
chmod +x "$WORK/bin/srun"
capture env PATH="$WORK/bin:$PATH" "$MTRUN" --db "$DB" doctor
expect_contains "$OUT" "warn  slurm     \`srun --version\` exited with 1: srun: fatal: Could not establish a configuration source (needed only for launcher: slurm)" \
  "doctor: an srun that fails"
mkdir -p "$WORK/empty"
capture env PATH="$WORK/empty" "$MTRUN" --db "$DB" doctor
expect_eq "$RC" 1 "doctor without mpirun"
expect_contains "$OUT" "FAIL  mpirun    not found on PATH" "doctor: no mpirun"
expect_contains "$OUT" "warn  slurm     srun not found (needed only for launcher: slurm)" "doctor: no srun"
echo "PASS (doctor)"

# An output path is the user's, but never the database a command reads: named, by a link, or as a
# file SQLite keeps beside it, it is refused before anything is read, and the database stays whole.
sql "pragma wal_checkpoint(TRUNCATE)" > /dev/null
db_sum=$(md5sum < "$DB")
ln -s "$DB" "$WORK/link.sqlite"
for writing in "report -o $DB" "report -o $WORK/link.sqlite" "history echoes --svg $DB" "history echoes -o $DB-wal" \
               "compare $ECHOES $MIXED -o $DB" "show $ECHO_ID --steps-csv $DB"; do
  # shellcheck disable=SC2086 # the words of one command
  capture "$MTRUN" --db "$DB" $writing
  expect_eq "$RC" 2 "$writing"
  expect_contains "$OUT" "this command reads; write it elsewhere" "$writing: refused, saying why"
done
expect_eq "$(md5sum < "$DB")" "$db_sum" "the database is whole"
# The same for the files a report writes beside it: a plot named as a link to the database,
# symbolic or hard, is refused before anything is written. (A peer's training result has plots.)
cat > "$WORK/plotted.yaml" <<YAML
name: plotted
studies:
  - name: p
    workload: command
    launch: direct
    command: [cp, "$MT_SOURCE_DIR/runner/tests/data/results/peer_train.json", "{result_file}"]
YAML
PLOTTED="$WORK/plotted.sqlite"
capture "$MTRUN" run "$WORK/plotted.yaml" --db "$PLOTTED"
expect_eq "$RC" 0 "a campaign of a peer's training: $OUT"
capture "$MTRUN" --db "$PLOTTED" report -o "$WORK/plotted.md"
expect_eq "$RC" 0 "a report with plots: $OUT"
plot=$(find "$WORK/plotted" -name '*.svg' -printf '%f\n' | head -n 1)
[ -n "$plot" ] || fail "the report wrote no plot: $OUT"
sqlite3 "$PLOTTED" "pragma wal_checkpoint(TRUNCATE)" > /dev/null
plotted_sum=$(md5sum < "$PLOTTED")
mkdir "$WORK/symbolic" "$WORK/hard"
ln -s "$PLOTTED" "$WORK/symbolic/$plot"
ln "$PLOTTED" "$WORK/hard/$plot"
for link in symbolic hard; do
  capture "$MTRUN" --db "$PLOTTED" report -o "$WORK/$link.md"
  expect_eq "$RC" 2 "a plot named as a $link link to the database"
  expect_contains "$OUT" "plot $WORK/$link/$plot: that is the database $PLOTTED this command reads" "$link link refused"
  [ ! -e "$WORK/$link.md" ] || fail "the report was written beside a $link link to the database"
done
expect_eq "$(md5sum < "$PLOTTED")" "$plotted_sum" "the database is whole after its links were named as plots"
# Two outputs of one command on one file: the second would replace the first.
capture "$MTRUN" --db "$DB" history echoes -o "$WORK/history.md" --svg "$WORK/./history.md"
expect_eq "$RC" 2 "history -o and --svg naming one file"
expect_contains "$OUT" "-o $WORK/history.md and --svg $WORK/./history.md name the same file" "the two outputs named"
[ ! -e "$WORK/history.md" ] || fail "history wrote the file both outputs name"
# A chart asked of an experiment with nothing to chart is refused before anything is written; the
# history itself says why it is empty.
cat > "$WORK/nothing.yaml" <<'YAML'
name: nothing
studies:
  - name: s
    workload: command
    launch: direct
    command: ["false"]
YAML
capture "$MTRUN" run "$WORK/nothing.yaml" --db "$WORK/nothing.sqlite"
expect_eq "$RC" 1 "a campaign whose only trial fails"
capture "$MTRUN" --db "$WORK/nothing.sqlite" history nothing -o "$WORK/nothing.md" --svg "$WORK/nothing.svg"
expect_eq "$RC" 2 "history --svg with nothing to chart"
expect_contains "$OUT" "--svg $WORK/nothing.svg: nothing to chart: no configuration of nothing has successful trials" \
  "nothing to chart, said"
[ ! -e "$WORK/nothing.md" ] && [ ! -e "$WORK/nothing.svg" ] || fail "history wrote a file with nothing to chart"
capture "$MTRUN" --db "$WORK/nothing.sqlite" history nothing
expect_eq "$RC" 0 "history with nothing to chart"
expect_contains "$OUT" "No configuration has successful trials." "the empty history says why"
# A report's plots go to a folder named as the report without its extension: a name without one is
# refused (it would be that folder), and "-" is standard output.
capture "$MTRUN" --db "$DB" report --campaign "$ECHOES" -o "$WORK/plain"
expect_eq "$RC" 2 "report -o without an extension"
expect_contains "$OUT" "name the report's file with its extension" "the extension asked for"
[ ! -e "$WORK/plain" ] || fail "report -o without an extension left $WORK/plain"
capture "$MTRUN" --db "$DB" report --campaign "$ECHOES" -o -
expect_eq "$RC" 0 "report -o -"
expect_contains "$OUT" "# echoes" "report -o - prints the report"
[ ! -e "-" ] || fail "report -o - left a file or folder named -"
echo "PASS (outputs never over the database)"

# Numeric flags take finite numbers within their bounds: "nan" is no number of seconds (it passes
# any comparison-based range), and the bounds are said as numbers.
capture "$MTRUN" --db "$DB" look --seconds nan
expect_eq "$RC" 2 "look --seconds nan"
expect_contains "$OUT" "--seconds: 'nan' is not a number from 0.1 to 600" "look --seconds nan: the bounds"
capture "$MTRUN" --db "$DB" show "$ECHO_ID" --attempt 0
expect_eq "$RC" 2 "show --attempt 0"
expect_contains "$OUT" "--attempt: '0' is not a whole number from 1 to" "show --attempt 0: a whole number from 1"
echo "PASS (numeric flags)"

# look --json tells what the lines tell: the cores (null where the load read busy: they are not
# timed then) and the verdict with its reasons, and exits 0 whatever it found (`run` judges it).
capture "$MTRUN" --db "$DB" look --json --seconds 0.2
expect_eq "$RC" 0 "look --json"
python3 - "$OUT" <<'PY' || fail "look --json: $OUT"
import json, sys
j = json.loads(sys.argv[1])
assert j["verdict"] in ("quiet", "busy"), j
assert (j["verdict"] == "quiet") == (j["reasons"] == []), j
if j["cores"] is None:
    assert j["verdict"] == "busy", j
else:
    assert set(j["cores"]) == {"round_trip_ns", "usual_ns", "campaign", "max_rise_pct", "far_apart", "says"}, j
    assert j["cores"]["far_apart"] == any(r.startswith("cores far apart") for r in j["reasons"]), j
for key in ("host", "node", "wall_s", "cpus", "foreign_cpu_pct", "steal_pct", "cpu_pressure_pct"):
    assert key in j, key
PY
echo "PASS (look --json)"
