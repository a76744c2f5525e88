#!/usr/bin/env bash
# A Slurm cluster of two nodes made of network namespaces (hosts.sh): slurmctld and a slurmd on
# the first, a slurmd on the second, `srun -N 2` placing one rank on each. Through mtrun's slurm
# launcher: training with each strategy and `comm` across both nodes, both hosts in provenance,
# a rank killed on the second node reported with its host and rank, and the look for a quiet
# machine on both nodes, from inside an allocation and inside each trial's own job.
source "$MT_SOURCE_DIR/tests/e2e/lib.sh"
source "$MT_SOURCE_DIR/tests/multinode/hosts.sh"
source "$MT_SOURCE_DIR/tests/e2e/slurm_lib.sh"
source "$MT_SOURCE_DIR/tests/multinode/slurm_cluster.sh"
DB="$WORK/results/mtrun.sqlite"
cluster_up

capture on_host "$A" srun -N 2 -n 2 hostname
expect_eq "$RC" 0 "srun across both nodes: $OUT"
expect_eq "$(sort <<<"$OUT" | tr '\n' ' ')" "$A $B " "srun places a task on each node"

TINY="vocab_size: 256, d_model: 32, n_heads: 2, n_layers: 1, seq_length: 16, batch_size: 2"
cat > "$WORK/nodes.yaml" <<YAML
name: multinode-slurm
timeout_s: 120
launcher: {type: slurm, args: [-N, "2"], threads_per_rank: 1}
studies:
  - name: train
    workload: train
    defaults: {$TINY, steps: 4, warmup_steps: 1, ranks: 2}
    matrix: {strategy: [ddp, fsdp, zero1, zero2]}
  - name: comm
    workload: comm
    defaults: {ranks: 2, sizes: "1024,262144", warmup: 1, iters: 2}
  - name: kill
    workload: train
    defaults: {$TINY, steps: 50, warmup_steps: 1, ranks: 2}
    engine_args: [--fault, "kill:rank=1,step=3"]
YAML
cd "$WORK"
capture on_host "$A" "$MTRUN" --db "$DB" run --engine "$ENGINE" nodes.yaml
echo "$OUT"
expect_eq "$RC" 1 "mtrun on the 2-node cluster, one trial killed"
expect_eq "$(sql "select count(*) from latest_attempts a join trials t on t.id = a.trial_id
  where t.study != 'kill' and a.state = 'succeeded'")" 5 "succeeded trials"
expect_eq "$(sql "select group_concat(distinct json_extract(a.result_json, '$.hosts')) from latest_attempts a
  join trials t on t.id = a.trial_id where t.study != 'kill'")" "[\"$A\",\"$B\"]" "every result names both hosts"
expect_eq "$(sql "select count(*) from provenance p join latest_attempts a on a.id = p.attempt_id
  join trials t on t.id = a.trial_id where t.study != 'kill' and p.hosts like '%$A%' and p.hosts like '%$B%'")" 5 \
  "provenance of every trial records both hosts"
expect_contains "$(sql "select command from latest_attempts limit 1")" "srun --mpi=pmix" "recorded command"
expect_eq "$(sql "select max(loss) - min(loss) <= 1e-4 * max(loss) from training where study='train'")" 1 \
  "the same final loss for every strategy"
expect_eq "$(sql "select count(*) from comm_rows")" "$(sql "select count(*) from comm_rows where wrong_values = 0")" \
  "comm: no wrong element"
[ "$(sql "select count(*) from comm_rows where wrong_values = 0")" -ge 8 ] || fail "too few comm rows"
killed="select a.state || ' ' || a.error_rank || ' ' || a.signal from latest_attempts a join trials t on t.id = a.trial_id where t.study = 'kill'"
expect_eq "$(sql "$killed")" "crashed 1 9" "the killed rank"
expect_contains "$(sql "select error_reason from latest_attempts a join trials t on t.id = a.trial_id where t.study = 'kill'")" \
  "rank 1 on $B" "the reason names the rank and its host"
# The look for a quiet machine inside an allocation of both nodes (mtrun under salloc -N 2): `mtrun
# look` on each node through srun. The two hosts share this machine's kernel, so a busy loop here
# shows on both, each reason naming its node.
cat > "$WORK/look.yaml" <<YAML
name: multinode-look
timeout_s: 60
launcher: {type: slurm, args: [-N, "2"], threads_per_rank: 1}
conditions: {wait_quiet_s: 2}
studies:
  - name: cmd
    workload: command
    command: [sh, -c, "echo ran"]
    defaults: {ranks: 2}
YAML
DB="$WORK/look/mtrun.sqlite"
capture on_host "$A" salloc -N 2 "$MTRUN" --db "$DB" plan look.yaml
expect_contains "$OUT" "wait up to 2 s for a quiet machine on the allocation's 2 nodes (srun)" "plan inside the allocation"
sh -c 'while :; do :; done' &
BURNER=$!
capture on_host "$A" salloc -N 2 "$MTRUN" --db "$DB" run --engine "$ENGINE" look.yaml
ALLOC_RC=$RC ALLOC_OUT=$OUT
# Outside an allocation the trial gets both nodes of its own: its job looks at them first (salloc -N 2,
# then `mtrun look --allocation` through srun on each), and mtrun records what it found.
capture on_host "$A" "$MTRUN" --db "$WORK/look_in_job/mtrun.sqlite" run --engine "$ENGINE" look.yaml
kill $BURNER
wait $BURNER 2>/dev/null || true
echo "$ALLOC_OUT"
expect_eq "$ALLOC_RC" 0 "run inside the allocation of both nodes"
expect_contains "$ALLOC_OUT" "node $A: other processes used" "the look on the first node"
expect_contains "$ALLOC_OUT" "node $B: other processes used" "the look on the second node"
expect_eq "$(sql "select quiet_found || ' ' || quiet_where from attempts")" "busy allocation_nodes" "the look recorded"
DB="$WORK/look_in_job/mtrun.sqlite"
echo "$OUT"
expect_eq "$RC" 0 "run with a job of its own on both nodes"
expect_contains "$OUT" "its job's look: still busy after" "the trial's line"
expect_eq "$(sql "select state || ' ' || quiet_found || ' ' || quiet_where from attempts")" "succeeded busy job_nodes" \
  "the job's look recorded"
look_log=$(cat "$(sql "select log_path from attempts")")
expect_contains "$look_log" "mtrun look on the allocation's 2 nodes (srun): still busy after" "the look in the job's log"
expect_contains "$look_log" "node $A: other processes used" "…on the first node"
expect_contains "$look_log" "node $B: other processes used" "…and on the second"
for _ in $(seq 1 100); do [ -z "$(squeue -h)" ] && break; sleep 0.1; done
expect_eq "$(squeue -h)" "" "jobs left"
echo "PASS"
