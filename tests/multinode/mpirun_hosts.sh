#!/usr/bin/env bash
# mpirun across two hosts made of network namespaces (hosts.sh), ranks talking TCP over the
# private link: the data-parallel oracle (2 ranks = 1 process) for every strategy, then through
# mtrun with a hostfile: training with each strategy and `comm` with every element checked, both
# hosts in provenance, traffic seen on the link, and a rank killed on the second host reported
# with its host and rank.
source "$MT_SOURCE_DIR/tests/e2e/lib.sh"
source "$MT_SOURCE_DIR/tests/multinode/hosts.sh"
trap 'hosts_down; rm -rf "$WORK"' EXIT
hosts_up
DB="$WORK/results/mtrun.sqlite"
printf '%s slots=1\n' "${HOST_NAMES[@]}" > "$WORK/hostfile"
A=${HOST_NAMES[0]}
B=${HOST_NAMES[1]}

# Bytes received on host B's end of the link so far (/proc/net is the reader's namespace's).
# shellcheck disable=SC2016  # awk's own $1 and $2
link_rx() { on_host "$B" awk '$1 == "mt0:" { print $2 }' /proc/net/dev; }

# The engine's own oracle across hosts: each strategy's 2-rank steps match one process on the
# global batch (loss and parameters), with AdamW and with SGD.
ORACLE="$MT_BUILD_DIR/bin/strategy_oracle_test"
if [ -x "$ORACLE" ]; then
  for strategy in ddp fsdp zero1 zero2; do
    capture on_host "$A" mpirun --allow-run-as-root -np 2 --hostfile "$WORK/hostfile" "${MPI_HOST_OPTIONS[@]}" \
      -x OMP_NUM_THREADS=1 "$ORACLE" --strategy "$strategy" --steps 3
    expect_eq "$RC" 0 "$strategy oracle across hosts: $OUT"
    expect_contains "$OUT" "$strategy oracle (sgd): world 2" "$strategy oracle"
    echo "$OUT" | grep oracle
  done
else
  echo "note: $ORACLE not built; the oracle part is left out"
fi

# The same through mtrun: the launcher's args carry the Open MPI settings.
mca_yaml=$(printf '"%s", ' "${MPI_HOST_OPTIONS[@]}")
TINY="vocab_size: 256, d_model: 32, n_heads: 2, n_layers: 1, seq_length: 16, batch_size: 2"
cat > "$WORK/hosts.yaml" <<YAML
name: multinode
timeout_s: 120
launcher: {type: mpirun, hostfile: hostfile, threads_per_rank: 1, args: [${mca_yaml%, }]}
studies:
  - name: train
    workload: train
    defaults: {$TINY, steps: 4, warmup_steps: 1, ranks: 2}
    matrix: {strategy: [ddp, fsdp, zero1, zero2]}
  - name: comm
    workload: comm
    defaults: {ranks: 2, sizes: "1024,262144", warmup: 1, iters: 2}
YAML
rx_before=$(link_rx)
cd "$WORK"
capture on_host "$A" "$MTRUN" --db "$DB" run --engine "$ENGINE" hosts.yaml
echo "$OUT"
expect_eq "$RC" 0 "mtrun across hosts"
rx_after=$(link_rx)
[ $((rx_after - rx_before)) -gt 1000000 ] ||
  fail "host $B received only $((rx_after - rx_before)) bytes over the link during the campaign"
expect_eq "$(sql "select count(*) from latest_attempts where state='succeeded'")" 5 "succeeded trials"
expect_eq "$(sql "select group_concat(distinct json_extract(a.result_json, '$.hosts')) from latest_attempts a")" \
  "[\"$A\",\"$B\"]" "every result names both hosts, rank 0 on $A"
expect_eq "$(sql "select count(*) from provenance p join latest_attempts a on a.id = p.attempt_id
  where p.hosts like '%$A%' and p.hosts like '%$B%'")" 5 "provenance of every trial records both hosts"
expect_contains "$(sql "select command from latest_attempts limit 1")" "--hostfile" "recorded command"
expect_eq "$(sql "select count(*) from conditions where job_ranks_here = 1")" 5 "one rank of each trial on mtrun's host"
# Data-parallel strategies on the same global batch follow the same losses.
expect_eq "$(sql "select max(loss) - min(loss) <= 1e-4 * max(loss) from training where study='train'")" 1 \
  "the same final loss for every strategy"
expect_eq "$(sql "select count(*) from comm_rows")" "$(sql "select count(*) from comm_rows where wrong_values = 0")" \
  "comm: no wrong element"
[ "$(sql "select count(*) from comm_rows where wrong_values = 0")" -ge 8 ] || fail "too few comm rows"

# parallel: 2 with a host set per trial in flight: two 1-rank trials at once, one on each host.
cat > "$WORK/sets.yaml" <<YAML
name: multinode-sets
timeout_s: 120
parallel: 2
launcher: {type: mpirun, hostfile: hostfile, threads_per_rank: 1, host_sets: [$A, $B], args: [${mca_yaml%, }]}
studies:
  - name: pair
    workload: train
    defaults: {$TINY, steps: 300, warmup_steps: 1, ranks: 1}
    matrix: {strategy: [ddp, fsdp]}
YAML
DB="$WORK/sets.sqlite"
capture on_host "$A" "$MTRUN" --db "$DB" run --engine "$ENGINE" sets.yaml
echo "$OUT"
expect_eq "$RC" 0 "two trials at once on disjoint host sets"
expect_eq "$(sql "select count(*) from attempts a join attempts b on a.id < b.id
  where a.started_at < b.finished_at and b.started_at < a.finished_at")" 1 "the two trials overlapped in time"
expect_eq "$(sql "select group_concat(json_extract(result_json, '$.hosts[0]'), ' ') from
  (select result_json from latest_attempts order by json_extract(result_json, '$.hosts[0]'))")" "$A $B" \
  "one trial on each host"
# The trial on $B ran no rank on mtrun's host ($A): its verdict does not rest on $A's load.
expect_eq "$(sql "select group_concat(job_ranks_here, ' ') from (select c.job_ranks_here from conditions c
  join attempts a on a.id = c.attempt_id order by json_extract(a.result_json, '$.hosts[0]'))")" "1 0" \
  "ranks on mtrun's host: the trial on $A, then the one on $B"
capture "$MTRUN" --db "$DB" show "$(sql "select trial from conditions where job_ranks_here = 0")"
expect_contains "$OUT" "no rank ran on the host mtrun ran on: the figures below are that host's, not the job's" \
  "mtrun show of the trial on $B"

# A rank killed on the second host: Open MPI's daemon there reports it; mtrun names rank and host.
cat > "$WORK/kill.yaml" <<YAML
name: multinode-kill
timeout_s: 120
launcher: {type: mpirun, hostfile: hostfile, threads_per_rank: 1, args: [${mca_yaml%, }]}
studies:
  - name: kill
    workload: train
    defaults: {$TINY, steps: 50, warmup_steps: 1, ranks: 2}
    engine_args: [--fault, "kill:rank=1,step=3"]
YAML
capture on_host "$A" "$MTRUN" --db "$WORK/kill.sqlite" run --engine "$ENGINE" kill.yaml
echo "$OUT"
expect_eq "$RC" 1 "mtrun with a killed rank"
DB="$WORK/kill.sqlite"
expect_eq "$(sql "select state || ' ' || error_rank || ' ' || signal from attempts")" "crashed 1 9" "the killed rank"
expect_contains "$(sql "select error_reason from attempts")" "rank 1 on $B" "the reason names the rank and its host"
expect_contains "$OUT" "rank 1 on $B" "mtrun's summary names the rank and its host"
# The look for a quiet machine goes to every host of the hostfile: `mtrun look --json` on each
# through mpirun. The two hosts share this machine's kernel, so a busy loop here shows on both,
# each reason naming its host.
cat > "$WORK/look.yaml" <<YAML
name: multinode-look
timeout_s: 60
launcher: {type: mpirun, hostfile: hostfile, threads_per_rank: 1, args: [${mca_yaml%, }]}
conditions: {wait_quiet_s: 2}
studies:
  - name: cmd
    workload: command
    command: [sh, -c, "echo ran"]
    defaults: {ranks: 2}
YAML
capture on_host "$A" "$MTRUN" --db "$WORK/look.sqlite" plan look.yaml
expect_contains "$OUT" "wait up to 2 s for a quiet machine on the hostfile's hosts (mpirun)" "plan with a hostfile"
sh -c 'while :; do :; done' &
BURNER=$!
capture on_host "$A" "$MTRUN" --db "$WORK/look.sqlite" run --engine "$ENGINE" look.yaml
kill $BURNER
wait $BURNER 2>/dev/null || true
echo "$OUT"
expect_eq "$RC" 0 "run with a hostfile, its hosts busy"
expect_contains "$OUT" "warning: the hostfile's hosts are busy: node $A: other processes used" "the start's look, first host"
expect_contains "$OUT" "node $B: other processes used" "the look on the second host"
DB="$WORK/look.sqlite"
expect_eq "$(sql "select quiet_found || ' ' || quiet_where from attempts")" "busy hostfile_hosts" "the look recorded"
echo "PASS"
