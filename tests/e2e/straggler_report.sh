#!/usr/bin/env bash
# A straggler shows in the report, not only in the step time: rank 1 sleeps 1.5 s before measured
# step 3 of a 2-rank run. The report's summary names the configuration, the rank the others waited
# for and the step; its "Waiting for the slowest rank" table lists the per-rank waits. The same
# configuration without the fault is not listed.
source "$(dirname "$0")/lib.sh"
DB="$WORK/results/mtrun.sqlite"
cat > "$WORK/straggler.yaml" <<'YAML'
name: straggler
studies:
  - name: clean
    workload: train
    defaults: {ranks: 2, vocab_size: 64, d_model: 32, n_heads: 4, n_layers: 2, seq_length: 16, batch_size: 2,
               threads: 1, steps: 6, warmup_steps: 1, collective_timeout: 60}
  - name: straggling
    workload: train
    defaults: {ranks: 2, vocab_size: 64, d_model: 32, n_heads: 4, n_layers: 2, seq_length: 16, batch_size: 2,
               threads: 1, steps: 6, warmup_steps: 1, collective_timeout: 60}
    engine_args: [--fault, "sleep:rank=1,step=3,seconds=1.5"]
YAML
capture "$MTRUN" --db "$DB" run "$WORK/straggler.yaml"
[ "$RC" = 0 ] || echo "$OUT" >&2
expect_eq "$RC" 0 "the run (the sleep is far inside the collective timeout)"
capture "$MTRUN" --db "$DB" report --keep-disturbed
expect_eq "$RC" 0 "report"
REPORT=$OUT
expect_contains "$REPORT" "## Waiting for the slowest rank" "the straggler section"
expect_contains "$REPORT" "for rank 1 (longest: " "the summary names the straggling rank"
expect_contains "$REPORT" "at step 3); see [Waiting for the slowest rank]" "the summary names the step"
ROWS=$(sed -n '/^## Waiting for the slowest rank/,/^## /p' <<<"$REPORT" | grep '^| ddp')
expect_eq "$(wc -l <<<"$ROWS")" 1 "only the straggling configuration is listed"
expect_contains "$ROWS" "straggling" "the listed row is the straggling study"
# Rank 0 waited about 1.5 s at step 3: over 6 measured steps, at least 233 ms per step on average.
WAIT0=$(sed -E 's/.*\| 0: ([0-9.]+), 1: ([0-9.]+) \|.*/\1/' <<<"$ROWS")
WAIT1=$(sed -E 's/.*\| 0: ([0-9.]+), 1: ([0-9.]+) \|.*/\2/' <<<"$ROWS")
python3 - "$WAIT0" "$WAIT1" <<'PY' || fail "per-rank waits: rank 0 $WAIT0 ms, rank 1 $WAIT1 ms"
import sys
w0, w1 = map(float, sys.argv[1:])
assert w0 >= 1400 / 6 and w1 < w0 / 4, (w0, w1)
PY
sed -n "/^## Waiting for the slowest rank/,/^## /p" <<<"$REPORT" | head -8
echo "PASS: $(grep -m1 "waited" <<<"$REPORT")"
