#!/usr/bin/env bash
# How much `mtrun query` holds: CSV and JSON stream every row, however many; a table holds at most
# 10,000 rows, prints them and stops with exit 1, saying how to get the rest — so a query whose rows
# never end cannot exhaust memory in any format. No engine is launched.
source "$(dirname "$0")/lib.sh"
export MTENGINE=/bin/true
DB="$WORK/results/mtrun.sqlite"
cat > "$WORK/exp.yaml" <<'YAML'
name: rows
studies:
  - name: s
    workload: command
    launch: direct
    command: [echo, "value: 1"]
YAML
capture "$MTRUN" run "$WORK/exp.yaml" --db "$DB"
expect_eq "$RC" 0 "first run"
rows() { echo "with recursive r(i) as (select 1 union all select i + 1 from r where i < $1) select i, 'x' || i as name from r"; }
LIMIT="mtrun: query stopped after 10000 rows, the most a table shows; use --csv or --json for every row, or LIMIT and OFFSET for a part"

capture "$MTRUN" --db "$DB" query "$(rows 10000)"
expect_eq "$RC" 0 "a table of 10,000 rows"
expect_eq "$(wc -l <<<"$OUT")" 10002 "header, rule and 10,000 rows"
set +e
"$MTRUN" --db "$DB" query "$(rows 10001)" > "$WORK/table.out" 2> "$WORK/table.err"
RC=$?
set -e
expect_eq "$RC" 1 "a table of more rows stops"
expect_eq "$(cat "$WORK/table.err")" "$LIMIT" "table limit message"
expect_eq "$(wc -l < "$WORK/table.out")" 10002 "the first 10,000 rows are printed"
expect_eq "$(tail -n 1 "$WORK/table.out")" "10000  x10000" "the last row printed"
RUNAWAY="with recursive r(i) as (select 1 union all select i + 1 from r) select i from r"
capture "$MTRUN" --db "$DB" query --timeout 60 "$RUNAWAY"
expect_eq "$RC" 1 "an endless table stops at the limit"
expect_contains "$OUT" "$LIMIT" "endless table message"
echo "PASS (table limit)"

capture "$MTRUN" --db "$DB" query --csv "$(rows 20000)"
expect_eq "$RC" 0 "CSV of 20,000 rows"
expect_eq "$(wc -l <<<"$OUT")" 20001 "every CSV row"
"$MTRUN" --db "$DB" query --json "$(rows 20000)" > "$WORK/rows.json"
expect_eq "$(python3 -c 'import json, sys; rows = json.load(open(sys.argv[1])); print(len(rows), rows[-1])' "$WORK/rows.json")" \
  "20000 {'i': 20000, 'name': 'x20000'}" "JSON of 20,000 rows"
expect_eq "$("$MTRUN" --db "$DB" query --json "select 1 as a, null as b, 'two
lines' as c union all select 2, 3.0, ''")" '[
  {
    "a": 1,
    "b": null,
    "c": "two\nlines"
  },
  {
    "a": 2,
    "b": 3.0,
    "c": ""
  }
]' "JSON layout: integers stay integers, reals stay reals"
expect_eq "$("$MTRUN" --db "$DB" query --json "select 1 as one, 9007199254740993 as big, 0.5 as half")" '[
  {
    "one": 1,
    "big": 9007199254740993,
    "half": 0.5
  }
]' "JSON numbers keep SQLite's type per value"
expect_eq "$("$MTRUN" --db "$DB" query --json "select 1 where 0")" "[]" "JSON of no rows"
# Blobs are written as SQL writes them, every byte in hex, in every format; text that is not UTF-8
# still gives valid JSON, the whole array, with the bad bytes replaced.
BYTES="select 1 as n, x'00ff41' as b, cast(x'fffe41' as text) as t union all select 2, x'', 'ok'"
capture "$MTRUN" --db "$DB" query --json "$BYTES"
expect_eq "$RC" 0 "JSON of blobs and bytes that are not UTF-8"
expect_eq "$(python3 -c 'import json, sys; print(ascii(json.loads(sys.stdin.read())))' <<<"$OUT")" \
  "[{'n': 1, 'b': \"x'00ff41'\", 't': '\ufffd\ufffdA'}, {'n': 2, 'b': \"x''\", 't': 'ok'}]" "JSON blobs and replaced bytes"
expect_eq "$("$MTRUN" --db "$DB" query --csv "select x'00ff41' as b, 'a' || char(0) || 'b' as t" | tr '\0' '0')" "b,t
x'00ff41',a0b" "CSV blobs in hex, text past a NUL"
capture "$MTRUN" --db "$DB" query "select x'00ff41' as b"
expect_eq "$(tail -n 1 <<<"$OUT")" "x'00ff41'" "table blobs in hex"
echo "PASS (CSV and JSON stream)"
