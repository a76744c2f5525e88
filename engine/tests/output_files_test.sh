#!/usr/bin/env bash
# What mtengine writes never destroys what it was not asked to write: a fresh run refuses a
# checkpoint directory holding published steps, reshard never overwrites a step nor moves `latest`
# back, no output may land inside a checkpoint step, a symlinked output is written through to its
# file, a FIFO (or any non-regular file) is refused up front, two flags naming one file are refused,
# profile and standard-output write failures fail the run. Every refusal is exit 2, before any work.
set -uo pipefail
MTENGINE=${1:?usage: output_files_test.sh PATH/TO/mtengine}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
MPIRUN=(mpirun --allow-run-as-root --oversubscribe --mca pml ob1 --mca btl self,vader)
TINY=(--vocab-size 128 --d-model 32 --n-heads 2 --n-layers 1 --seq-length 16 --batch-size 2 --warmup-steps 0
      --threads 1)
failures=0

fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}
# expect CODE MESSAGE NP ARGS...: runs mtengine on NP ranks, wants the exit code and the message.
expect() {
  local code=$1 message=$2 np=$3
  shift 3
  "${MPIRUN[@]}" -np "$np" "$MTENGINE" "$@" >"$WORK/out" 2>&1
  local rc=$?
  if [[ $rc != "$code" ]] || ! grep -qF -- "$message" "$WORK/out"; then
    fail "mtengine $* -> exit $rc (want $code and '$message'), output:"
    cat "$WORK/out" >&2
  else
    echo "ok: $* -> $code"
  fi
}
train() { "${MPIRUN[@]}" -np "$1" "$MTENGINE" train "${TINY[@]}" "${@:2}" >"$WORK/out" 2>&1 || { cat "$WORK/out" >&2; fail "train ${*:2}"; }; }
latest() { readlink "$1/latest"; }

# --- a fresh run into another run's checkpoints (defect: overwritten, latest moved back) ---
# A run that dies after its step-4 checkpoint, as mtrun's restart: finds it.
"${MPIRUN[@]}" -np 2 "$MTENGINE" train "${TINY[@]}" --steps 6 --checkpoint-dir "$WORK/ck" --save-every 2 \
  --fault kill:rank=0,step=5 >"$WORK/out" 2>&1 && fail "the killed run succeeded"
before=$(sha256sum "$WORK/ck/step_00000002/metadata.json")
expect 2 "--checkpoint-dir '$WORK/ck' holds checkpoints of another run (step_00000004: config_fingerprint" 1 \
  train --vocab-size 128 --d-model 64 --n-heads 2 --n-layers 1 --seq-length 16 --batch-size 2 --warmup-steps 0 \
  --steps 2 --checkpoint-dir "$WORK/ck" --save-every 2 --keep-last 1
expect 2 "pass --resume latest to continue it" 2 \
  train "${TINY[@]}" --steps 6 --checkpoint-dir "$WORK/ck" --save-every 2
[[ $(sha256sum "$WORK/ck/step_00000002/metadata.json") == "$before" ]] || fail "a refused run changed step 2"
[[ $(latest "$WORK/ck") == step_00000004 ]] || fail "latest is $(latest "$WORK/ck"), want step_00000004"
# The same run resumed goes on (mtrun's relaunch), and a run that saves nothing may read the directory.
train 2 --steps 6 --checkpoint-dir "$WORK/ck" --save-every 2 --resume latest
[[ $(latest "$WORK/ck") == step_00000006 ]] || fail "resume did not publish step 6"
train 1 --steps 2 --checkpoint-dir "$WORK/ck"

# --- reshard into a directory holding that step or a newer one ---
expect 2 "DST '$WORK/ck' already holds step_00000006 (newer than step 4)" 1 \
  reshard "$WORK/ck/step_00000004" "$WORK/ck" --strategy ddp
expect 2 "already holds step_00000006: writing step 6 there would overwrite that published step" 1 \
  reshard "$WORK/ck/step_00000006" "$WORK/ck" --strategy ddp
expect 2 "lies inside the source step" 1 reshard "$WORK/ck/step_00000006" "$WORK/ck/step_00000006" --strategy ddp
[[ $(latest "$WORK/ck") == step_00000006 ]] || fail "reshard moved latest to $(latest "$WORK/ck")"
touch "$WORK/plain"
expect 2 "DST '$WORK/plain' is not a directory" 1 reshard "$WORK/ck/step_00000006" "$WORK/plain" --strategy ddp
expect 2 "--bucket-cap-mb nan must be a number" 1 \
  reshard "$WORK/ck/step_00000006" "$WORK/other" --strategy ddp --bucket-cap-mb nan
mkdir -p "$WORK/unready/step_00000002"
expect 2 "SRC '$WORK/unready/step_00000002' is not a published checkpoint (no READY)" 1 \
  reshard "$WORK/unready/step_00000002" "$WORK/other" --strategy ddp
"${MPIRUN[@]}" -np 1 "$MTENGINE" reshard "$WORK/ck/step_00000006" "$WORK/ck1" --strategy ddp >"$WORK/out" 2>&1 ||
  { cat "$WORK/out" >&2; fail "reshard into a new directory"; }

# --- outputs inside a checkpoint step ---
shard="$WORK/ck/step_00000006/rank_00000.shard"
before=$(sha256sum "$shard")
expect 2 "OUT '$shard' lies inside checkpoint step '$WORK/ck/step_00000006'" 1 \
  export "$WORK/ck/step_00000006" "$shard"
expect 2 "--progress-file '$WORK/ck/step_00000006/progress' lies inside checkpoint step" 1 \
  train "${TINY[@]}" --steps 1 --progress-file "$WORK/ck/step_00000006/progress"
[[ $(sha256sum "$shard") == "$before" ]] || fail "a refused export changed the shard"

# --- symlinks are written through; FIFOs and directories refused up front ---
echo old >"$WORK/real.json"
ln -s real.json "$WORK/link.json"
train 1 --steps 1 --output "$WORK/link.json"
[[ -L "$WORK/link.json" ]] || fail "--output replaced the symlink"
python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["status"] == "ok"' "$WORK/real.json" ||
  fail "the symlink's file does not hold the result"
ln -s real.safetensors "$WORK/link.safetensors"
"$MTENGINE" export "$WORK/ck/step_00000006" "$WORK/link.safetensors" >"$WORK/out" 2>&1 || fail "export through a symlink"
[[ -L "$WORK/link.safetensors" && -s "$WORK/real.safetensors" ]] || fail "export replaced the symlink"
mkfifo "$WORK/fifo"
for flag in --output --weights-out --gradients-out --progress-file; do
  expect 2 "$flag '$WORK/fifo' is a FIFO" 1 train "${TINY[@]}" --steps 1 "$flag" "$WORK/fifo"
done
ln -s fifo "$WORK/fifo-link"
expect 2 "--output '$WORK/fifo-link' (a symlink to '$WORK/fifo') is a FIFO" 1 \
  train "${TINY[@]}" --steps 1 --output "$WORK/fifo-link"
expect 2 "OUT '$WORK/fifo' is a FIFO" 1 export "$WORK/ck/step_00000006" "$WORK/fifo"
expect 2 "--output '$WORK/fifo' is a FIFO" 1 tokens --step 0 --output "$WORK/fifo"
[[ -p "$WORK/fifo" ]] || fail "the FIFO was replaced"
mkdir "$WORK/adir"
expect 2 "--weights-out '$WORK/adir' names a directory, not a file" 1 \
  train "${TINY[@]}" --steps 1 --weights-out "$WORK/adir"
expect 2 "--progress-file '$WORK/missing/p': directory '$WORK/missing' does not exist" 1 \
  train "${TINY[@]}" --steps 1 --progress-file "$WORK/missing/p"

# --- two flags naming one file ---
expect 2 "--weights-out '$WORK/w.safetensors' and --gradients-out '$WORK/./w.safetensors' name the same file" 1 \
  train "${TINY[@]}" --steps 1 --weights-out "$WORK/w.safetensors" --gradients-out "$WORK/./w.safetensors"
expect 2 "--output '$WORK/x' and --weights-out '$WORK/x' name the same file" 1 \
  train "${TINY[@]}" --steps 1 --weights-out "$WORK/x" --output "$WORK/x"

# --- profiles: stale rank files go; ---
train 2 --steps 2 --profile "$WORK/prof"
[[ -f "$WORK/prof/rank_00001.trace.json" ]] || fail "a 2-rank profile wrote no rank 1 trace"
train 1 --steps 2 --profile "$WORK/prof"
[[ ! -e "$WORK/prof/rank_00001.trace.json" ]] || fail "a 1-rank profile left the earlier rank 1 trace"
[[ -f "$WORK/prof/rank_00000.trace.json" && -f "$WORK/prof/profile.json" ]] || fail "the 1-rank profile is missing"

# --- standard output that cannot be written (closed) fails the command ---
"$MTENGINE" version --json >&- 2>"$WORK/err"
rc=$?
[[ $rc == 1 ]] && grep -qF "cannot write to standard output" "$WORK/err" || fail "version --json >&- -> exit $rc"
"$MTENGINE" train --describe >&- 2>"$WORK/err"
rc=$?
[[ $rc == 1 ]] || fail "train --describe >&- -> exit $rc"

[[ $failures == 0 ]] || { echo "$failures failure(s)" >&2; exit 1; }
echo "all output file checks passed"
