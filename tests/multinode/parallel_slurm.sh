#!/usr/bin/env bash
# `parallel: 2` on the 2-node namespace cluster (slurm_cluster.sh): two trials in flight at once,
# each an allocation of its own with --exclusive nodes, so they run at overlapping times on
# different nodes, each with its own complete record; the report says which overlapped. On a
# shared machine with mpirun and no CPU sets, parallel is refused with exit 2, saying why.
source "$MT_SOURCE_DIR/tests/e2e/lib.sh"
source "$MT_SOURCE_DIR/tests/multinode/hosts.sh"
source "$MT_SOURCE_DIR/tests/e2e/slurm_lib.sh"
source "$MT_SOURCE_DIR/tests/multinode/slurm_cluster.sh"
DB="$WORK/results/mtrun.sqlite"
cluster_up

TINY="vocab_size: 256, d_model: 32, n_heads: 2, n_layers: 1, seq_length: 16, batch_size: 2"
cat > "$WORK/parallel.yaml" <<YAML
name: multinode-parallel
timeout_s: 120
parallel: 2
launcher: {type: slurm, threads_per_rank: 1}
studies:
  - name: pair
    workload: train
    defaults: {$TINY, steps: 300, warmup_steps: 1, ranks: 1}
    matrix: {strategy: [ddp, fsdp]}
YAML
cd "$WORK"
capture on_host "$A" "$MTRUN" --db "$DB" run --engine "$ENGINE" parallel.yaml
echo "$OUT"
expect_eq "$RC" 0 "mtrun with parallel: 2 on the 2-node cluster"
expect_eq "$(sql "select count(*) from latest_attempts where state = 'succeeded'")" 2 "both trials succeeded"
expect_eq "$(sql "select count(*) from attempts")" 2 "one attempt each"
# Overlapping in time: each started before the other finished.
expect_eq "$(sql "select count(*) from attempts a join attempts b on a.id < b.id
  where a.started_at < b.finished_at and b.started_at < a.finished_at")" 1 "the two trials overlapped in time"
expect_eq "$(sql "select count(distinct p.hosts) from provenance p join latest_attempts a on a.id = p.attempt_id")" 2 \
  "the two trials ran on different nodes"
on_alone() { sql "select count(*) from provenance where hosts like '%\"$1\"%' and hosts not like '%\"$2\"%'"; }
expect_eq "$(on_alone "$A" "$B")" 1 "one trial on $A alone"
expect_eq "$(on_alone "$B" "$A")" 1 "one trial on $B alone"
expect_eq "$(sql "select count(*) from latest_attempts where command like '%srun %--exclusive%'")" 2 \
  "each trial asked for nodes of its own"
# Each a complete record, as one run alone would leave: metrics, per-step series, provenance.
expect_eq "$(sql "select count(*) from training where tokens_per_sec > 0 and loss > 0")" 2 "metrics of each"
expect_eq "$(sql "select count(distinct attempt_id) from step_metrics where name = 'step_time_ms'")" 2 "step series of each"
expect_eq "$(sql "select count(*) from provenance where command != '' and hosts != '[]'")" 2 "provenance of each"
capture "$MTRUN" --db "$DB" report
expect_eq "$RC" 0 "report"
expect_contains "$OUT" "Trials that ran at the same time" "the report notes the overlap"
expect_contains "$OUT" "(on $A)" "the report names the hosts"

# On a shared machine with mpirun, parallel is refused unless each trial in flight has its CPUs.
sed -e 's/{type: slurm, threads_per_rank: 1}/{type: mpirun}/' parallel.yaml > shared.yaml
capture "$MTRUN" --db "$WORK/shared.sqlite" run --engine "$ENGINE" shared.yaml
expect_eq "$RC" 2 "parallel with mpirun on one machine"
expect_contains "$OUT" "disturbing each other's timings" "the refusal says why"
sed -e '/^parallel: 2$/d' shared.yaml > one.yaml
capture "$MTRUN" --db "$WORK/shared.sqlite" run --engine "$ENGINE" --parallel 2 one.yaml
expect_eq "$RC" 2 "run --parallel 2 with mpirun on one machine"
expect_contains "$OUT" "declare 2 disjoint CPU sets" "the refusal says what would allow it"
echo "PASS"
