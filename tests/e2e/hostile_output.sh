#!/usr/bin/env bash
# Whatever a trial writes, mtrun records its attempt as finished with a reason and goes on to the
# next trial: a result JSON nested 50,000 deep, a 100 KB line in Open MPI's rank-death format,
# a metric that reads nan, numbers JSON cannot hold (1e400, NaN), a FIFO where the result file
# goes, a metric named with 300 escape sequences. No engine is launched.
source "$(dirname "$0")/lib.sh"
export MTENGINE=/bin/true
DB="$WORK/results/mtrun.sqlite"
cat > "$WORK/hostile.yaml" <<'YAML'
name: hostile
studies:
  - name: deep
    workload: command
    launch: direct
    command: [python3, -c, "import sys; open(sys.argv[1], 'w').write('{{\"a\": ' + '[' * 50000 + ']' * 50000 + '}}')", "{result_file}"]
  - name: rankline
    workload: command
    launch: direct
    command: [python3, -c, "print('process rank 1 with PID 42 on node ' + 'n' * 100000 + ' exited on signal 9'); raise SystemExit(1)"]
  - name: nan
    workload: command
    launch: direct
    command: [echo, "loss: nan"]
    metrics: {loss: {regex: 'loss: ([a-z0-9.]+)'}}
  - name: overflow
    workload: command
    launch: direct
    command: [python3, -c, "import sys; open(sys.argv[1], 'w').write('{{\"speed\": 1e400, \"loss\": NaN, \"ok\": 2}}')", "{result_file}"]
    metrics: {ok: {json: ok}}
  - name: fifo
    workload: command
    launch: direct
    command: [mkfifo, "{result_file}"]
  - name: longname
    workload: command
    launch: direct
    command: [python3, -c, "import sys, json; open(sys.argv[1], 'w').write(json.dumps({{'\u001b[31m' * 300: 5}}))", "{result_file}"]
  - name: fine
    workload: command
    launch: direct
    command: [echo, "value: 3"]
    metrics: {value: {regex: 'value: ([0-9]+)'}}
YAML
capture "$MTRUN" --db "$DB" run "$WORK/hostile.yaml"
echo "$OUT"
expect_eq "$RC" 1 "some trials fail"
expect_eq "$(sql "select count(*) from attempts where state = 'running' or finished_at is null")" 0 "every attempt finished"
state() { sql "select a.state || ': ' || coalesce(a.error_reason, '') from attempts a join trials t on t.id = a.trial_id where t.study = '$1'"; }
expect_eq "$(state deep)" "failed: result file result.json rejected: nests deeper than 64 levels" "deep JSON"
expect_contains "$(state rankline)" "failed: process rank 1 with PID 42 on node nnn" "100 KB rank line"
expect_eq "$(state nan)" "failed: metric 'loss': 'nan' in the output is not a finite number" "nan metric"
expect_eq "$(state overflow)" "succeeded: " "1e400 and NaN do not reject the result"
expect_eq "$(sql "select group_concat(m.name, ',') from metrics m join attempts a on a.id = m.attempt_id join trials t on t.id = a.trial_id where t.study = 'overflow'")" "ok" "non-finite values are not metrics"
expect_eq "$(sql "select json_extract(result_json, '$.speed') is null and json_valid(result_json) from attempts a join trials t on t.id = a.trial_id where t.study = 'overflow'")" 1 "stored as null in valid JSON"
expect_eq "$(state fifo)" "failed: result file result.json rejected: not a regular file" "FIFO result"
expect_eq "$(state fine)" "succeeded: " "the campaign went on"
# A metric named with escape sequences, 2,700 bytes long: its trial's line shows it escaped and clipped.
line=$(grep 'longname .* succeeded in' <<<"$OUT")
expect_contains "$line" '\x1b[31m\x1b[31m' "escaped metric name"
[[ "$line" != *$'\e'* ]] || fail "a metric's name wrote an escape sequence to the terminal"
[ "${#line}" -lt 200 ] || fail "a metric's name made a progress line of ${#line} characters"
expect_contains "$(grep 'fine .* succeeded in' <<<"$OUT")" "  value 3" "the trial's value on its line"
echo "PASS"
