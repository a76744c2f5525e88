#!/usr/bin/env bash
# No value can break a table the runner renders: a parameter value holding a newline, a carriage
# return, a tab, an escape sequence or a '|' is shown escaped in `plan`, `status`, the progress and
# summary of `run` and the report (its markdown tables one row per trial, its lists one line each). No engine is launched.
source "$(dirname "$0")/lib.sh"
export MTENGINE=/bin/true
DB="$WORK/results/mtrun.sqlite"
cat > "$WORK/exp.yaml" <<'YAML'
name: cells
conditions: {keep_disturbed: true}   # a shared test machine: every trial has its row
studies:
  - name: s
    workload: command
    launch: direct
    command: [echo, "value: 1"]
    matrix: {label: ["two\nlines|pipe\ttab\r\e[31mred", plain]}
    metrics: {value: {regex: 'value: ([0-9]+)'}}
YAML
ESCAPED='two\nlines|pipe\ttab\r\x1b[31mred'
capture "$MTRUN" plan "$WORK/exp.yaml"
expect_eq "$RC" 0 "plan"
expect_contains "$OUT" "label=$ESCAPED rep 0" "plan line"
[ "$(grep -c $'[\e\r\t]' <<<"$OUT")" == 0 ] || fail "a control character reached the plan: $OUT"
capture "$MTRUN" --db "$DB" run "$WORK/exp.yaml"
expect_eq "$RC" 0 "run"
expect_contains "$OUT" "label=$ESCAPED" "run summary"
expect_contains "$OUT" "] s label=$ESCAPED rep 0 ... succeeded in " "run progress line"
expect_contains "$OUT" "] s label=plain rep 0 ... succeeded in " "run progress line"
[ "$(grep -c $'\e' <<<"$OUT")" == 0 ] || fail "an escape character reached the terminal: $OUT"
capture "$MTRUN" --db "$DB" status
expect_eq "$RC" 0 "status"
expect_eq "$(grep -c 'label=' <<<"$OUT")" 2 "one status row per trial"
expect_contains "$OUT" "label=$ESCAPED" "status row"
[ "$(grep -c $'[\e\r\t]' <<<"$OUT")" == 0 ] || fail "a control character reached the terminal: $OUT"
capture "$MTRUN" --db "$DB" report
expect_eq "$RC" 0 "report"
expect_contains "$OUT" 'two\nlines\|pipe\ttab\r\x1b[31mred' "report cell"
[ "$(grep -c $'[\e\r\t]' <<<"$OUT")" == 0 ] || fail "a control character reached the report"
# Every table line of the report has as many cells as its header.
python3 - "$OUT" <<'PY' || fail "a report table row has the wrong number of cells"
import re, sys
cells = lambda line: len(re.findall(r"(?<!\\)\|", line))
table = None
for line in sys.argv[1].split("\n"):
    if line.startswith("|"):
        table = table or cells(line)
        assert cells(line) == table, line
    else:
        table = None
PY
echo "PASS"
