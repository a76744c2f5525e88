#!/usr/bin/env bash
# Two `mtrun run` of one experiment on one database, started together, run every trial exactly
# once: the second is refused, naming the holder of the campaign's lease (or, started after the
# first finished, finds nothing left). A new database's schema is created once, whoever comes
# first. A runner killed mid-campaign shows in `status` as interrupted; the next runner takes its
# lease over. A lease held from another host binds until it expires. Command workloads only (no
# engine is launched), real processes and a real database.
source "$(dirname "$0")/lib.sh"
export MTENGINE=/bin/true
HOST=$(hostname)

experiment() {  # experiment DIR SLEEP: six trials, each appending its identity to DIR/ran.txt
  mkdir -p "$1"
  cat > "$1/two.yaml" <<YAML
name: two
repeat: 2
studies:
  - name: s
    workload: command
    launch: direct
    command: [sh, -c, 'sleep $2; echo {trial} >> "{experiment_dir}/ran.txt"; echo "value: 1"']
    matrix:
      n: [1, 2, 3]
    metrics:
      value: {regex: 'value: ([0-9]+)'}
YAML
}

# race DIR: two runners at once on DIR's database; every trial must have run exactly once.
race() {
  local dir=$1 a b rca rcb
  "$MTRUN" run "$dir/two.yaml" --db "$DB" > "$dir/a.log" 2>&1 & a=$!
  "$MTRUN" run "$dir/two.yaml" --db "$DB" > "$dir/b.log" 2>&1 & b=$!
  set +e; wait $a; rca=$?; wait $b; rcb=$?; set -e
  expect_eq "$(sort "$dir/ran.txt" | uniq | wc -l) $(wc -l < "$dir/ran.txt")" "6 6" "trials run, each once ($dir)"
  expect_eq "$(sql "select count(*), sum(state = 'succeeded'), count(distinct trial_id) from attempts a join trials t on t.id = a.trial_id join campaigns c on c.id = t.campaign_id where c.experiment = 'two'")" "6|6|6" "attempts in the database ($dir)"
  # One runner ran the campaign; the other was refused naming it, or found nothing left to run.
  for pair in "$rca $a $dir/b.log $rcb" "$rcb $b $dir/a.log $rca"; do  # winner exit, its pid, loser log and exit
    set -- $pair
    if [ "$1" == 0 ] && [ "$4" != 0 ]; then
      expect_eq "$4" 1 "exit code of the refused runner"
      expect_contains "$(cat "$3")" "is already being run by mtrun (pid $2 on $HOST, since " "refusal names the holder"
      return
    fi
  done
  [ "$rca" == 0 ] && [ "$rcb" == 0 ] || fail "runners exited $rca and $rcb: $(cat "$dir/a.log" "$dir/b.log")"
  grep -q "0 to run" "$dir/a.log" "$dir/b.log" || fail "both runners ran trials: $(cat "$dir/a.log" "$dir/b.log")"
}

# 1. New databases: schema creation and the lease race, several times.
for round in 1 2 3 4 5; do
  DB="$WORK/new$round/results/mtrun.sqlite"
  experiment "$WORK/new$round" 0.2
  race "$WORK/new$round"
  expect_eq "$(sql 'PRAGMA integrity_check')" ok "integrity (round $round)"
  expect_eq "$(sql 'select count(*) from leases')" 0 "leases released (round $round)"
done
echo "PASS (new databases)"

# 2. An existing database holding another campaign.
DB="$WORK/existing/results/mtrun.sqlite"
experiment "$WORK/existing" 0.2
sed 's/^name: two/name: other/; s/n: \[1, 2, 3\]/n: [9]/' "$WORK/existing/two.yaml" > "$WORK/existing/other.yaml"
"$MTRUN" --db "$DB" run "$WORK/existing/other.yaml" > /dev/null
rm "$WORK/existing/ran.txt"
race "$WORK/existing"
echo "PASS (existing database)"

# 3. SIGKILL mid-trial: status shows the attempt as interrupted (without writing), its provenance
#    is on record, and the next runner takes the lease over and completes the campaign.
DB="$WORK/killed/results/mtrun.sqlite"
experiment "$WORK/killed" 1
"$MTRUN" --db "$DB" run "$WORK/killed/two.yaml" > "$WORK/killed/a.log" 2>&1 &
RUNNER=$!
for _ in $(seq 1 300); do
  [ "$(sql "select count(*) from attempts where state = 'running'" 2>/dev/null)" == 1 ] && break
  sleep 0.05
done
kill -9 $RUNNER
wait $RUNNER 2>/dev/null || true
expect_eq "$(sql "select count(*) from attempts a join provenance p on p.attempt_id = a.id where a.state = 'running'")" 1 "provenance of the killed attempt"
capture "$MTRUN" --db "$DB" status
expect_eq "$RC" 0 "status after SIGKILL"
expect_contains "$OUT" "interrupted: mtrun (pid $RUNNER on $HOST) is gone; the next \`mtrun run\` or \`mtrun rerun --failed\` runs this trial again" "status names the gone runner"
expect_eq "$(sql "select count(*) from attempts where state = 'running'")" 1 "status wrote nothing"
capture "$MTRUN" --db "$DB" run "$WORK/killed/two.yaml"
expect_eq "$RC" 0 "the next runner completes the campaign"
expect_contains "$OUT" "1 attempt(s) left running by a stopped mtrun are now marked interrupted" "takeover"
expect_eq "$(sql "select count(distinct trial_id) from attempts where state = 'succeeded'") $(sql "select count(*) from attempts where state = 'succeeded'")" "6 6" "each trial succeeded once"
echo "PASS (killed runner)"

# 4. A lease held from another host binds until it expires.
CAMPAIGN=$(sql "select id from campaigns")
sql "insert into leases values ('$CAMPAIGN', 'elsewhere', 99, '1', '2024-01-01T00:00:00Z', strftime('%s', 'now') + 600)"
capture "$MTRUN" --db "$DB" run "$WORK/killed/two.yaml" --force
expect_eq "$RC" 1 "refused while another host's lease is live"
expect_contains "$OUT" "campaign $CAMPAIGN is already being run by mtrun (pid 99 on elsewhere, since 2024-01-01T00:00:00Z); one runner runs a campaign at a time: wait for it to finish, or stop it" "refusal"
sql "update leases set expires_at = strftime('%s', 'now') - 1"
capture "$MTRUN" --db "$DB" run "$WORK/killed/two.yaml"
expect_eq "$RC" 0 "an expired lease is taken over"
echo "PASS (lease from another host)"
