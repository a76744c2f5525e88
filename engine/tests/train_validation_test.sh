#!/usr/bin/env bash
# Bad input stops every rank with exit 2 and a message naming the flag and value.
set -uo pipefail
MTENGINE=${1:?usage: train_validation_test.sh PATH/TO/mtengine}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
MPIRUN=(mpirun --allow-run-as-root --oversubscribe --mca pml ob1 --mca btl self,vader -np 2)
failures=0

expect() {  # expect CODE MESSAGE ARGS...: runs mtengine on 2 ranks
  local code=$1 message=$2
  shift 2
  "${MPIRUN[@]}" "$MTENGINE" "$@" >"$WORK/out" 2>&1
  local rc=$?
  if [[ $rc != "$code" ]] || ! grep -qF -- "$message" "$WORK/out"; then
    echo "FAIL: mtengine $* -> exit $rc (want $code), output:" >&2
    cat "$WORK/out" >&2
    failures=$((failures + 1))
  else
    echo "ok: $* -> $code: $message"
  fi
}

expect 2 "mtengine train: --n-heads 7 does not divide --d-model 512" train --n-heads 7
expect 2 "mtengine train: --batch-size 0 must be at least 1" train --batch-size 0
STRATEGIES=$("$MTENGINE" describe | python3 -c \
  'import json, sys; print(", ".join(s["name"] for s in json.load(sys.stdin)["strategies"]))')
expect 2 "mtengine train: --strategy 'fdsp' must be one of $STRATEGIES" train --strategy fdsp
# --help names every choice of a choice flag.
"$MTENGINE" train --help >"$WORK/help.txt" 2>&1
for shown in "--strategy {${STRATEGIES//, /,}}=ddp" "--backend {mpi,nccl}=mpi" "--lr-scheduler {constant,cosine}" \
             "--precision {fp32,bf16}"; do
  grep -qF -- "$shown" "$WORK/help.txt" || { echo "FAIL: train --help lacks '$shown'" >&2; failures=$((failures + 1)); }
done
expect 2 "mtengine train: --precision 'fp16' must be one of fp32, bf16" train --precision fp16
expect 2 "mtengine train: --lr-scheduler 'linear' must be one of constant, cosine" train --lr-scheduler linear
expect 2 "mtengine train: --grad-reduce-dtype 'fp8' must be one of fp32, bf16" train --grad-reduce-dtype fp8
expect 2 "mtengine train: --vocab-size 1 must be at least 2" train --vocab-size 1
expect 2 "mtengine train: --vocab-size 1000000000000 must be at most 16777216" train --vocab-size 1000000000000
expect 2 "mtengine train: --learning-rate nan must be a finite number" train --learning-rate nan
expect 2 "--output: must not be empty" train --output ""
expect 2 "mtengine train: --output '$WORK/missing/r.json': directory '$WORK/missing' does not exist" \
  train --steps 1 --output "$WORK/missing/r.json"
mkdir -p "$WORK/readonly" && chmod 555 "$WORK/readonly"
if [ "$(id -u)" -ne 0 ]; then  # root writes anywhere
  expect 2 "directory '$WORK/readonly' is not writable" train --steps 1 --output "$WORK/readonly/r.json"
fi
# Paths the run will write to are checked before the first step, not at the first save.
touch "$WORK/a_file"
expect 2 "mtengine train: --output '$WORK' names a directory, not a file" train --steps 1 --output "$WORK"
expect 2 "mtengine train: --profile '$WORK/a_file' is not a directory" train --steps 1 --profile "$WORK/a_file"
expect 2 "mtengine train: --checkpoint-dir '$WORK/a_file' is not a directory" \
  train --steps 1 --checkpoint-dir "$WORK/a_file" --save-every 1
expect 2 "mtengine train: --checkpoint-dir '$WORK/a_file/sub': '$WORK/a_file' is not a directory" \
  train --steps 1 --checkpoint-dir "$WORK/a_file/sub" --save-every 1
expect 2 "--seed: must not be negative" train --seed -1
expect 2 "mtengine train: --fault 'sleep:rank=1,step=3,seconds=nan': seconds=nan is not a non-negative number" \
  train --fault sleep:rank=1,step=3,seconds=nan
expect 2 "mtengine train: --fault 'sleep:rank=1,step=3,seconds=1e300': seconds=1e300 is longer than a day (86400 s)" \
  train --fault sleep:rank=1,step=3,seconds=1e300
# A fault that can never fire is refused, saying why.
expect 2 "--fault kill:rank=0,step=99 can never fire: the run's last step is 7" \
  train --warmup-steps 0 --steps 8 --fault kill:rank=0,step=99
expect 2 "--fault save-kill:rank=1,step=4 can never fire: this run saves no checkpoint" \
  train --steps 8 --fault save-kill:rank=1,step=4
expect 2 "--fault save-kill:rank=1,step=3 can never fire: step 3 is not a save step (every 2 steps" \
  train --steps 8 --checkpoint-dir "$WORK/ck" --save-every 2 --fault save-kill:rank=1,step=3
# `tokens` takes the batch bounds `train` takes.
expect 2 "not in range" tokens --step 0 --grad-accum-steps 9999999 --output "$WORK/t.safetensors"
expect 2 "not in range" tokens --step 0 --batch-size 1048577 --output "$WORK/t.safetensors"
# Whole numbers beyond their type are refused as written, not clamped to its limit.
expect 2 "--seed: 99999999999999999999 must be at most 18446744073709551615" train --seed 99999999999999999999
expect 2 "--d-model: 99999999999999999999 must be at most 65536" train --d-model 99999999999999999999
# A leading 0 would make CLI11 read a number as octal (010 steps: 8), and 0x as hexadecimal, where
# mtrun and a reader of the command see decimal: refused in every subcommand.
expect 2 "--steps: 010: write a whole number in plain decimal, without a leading 0" train --steps 010
expect 2 "--seed: 0x10: write a whole number in plain decimal" train --seed 0x10
expect 2 "--step: 07: write a whole number in plain decimal" tokens --step 07 --output "$WORK/t.safetensors"
expect 2 "--iters: 010: write a whole number in plain decimal" comm --iters 010
# A model that cannot fit in the host's memory is refused before it is built, naming the need.
# Even one whose estimate is beyond any whole number of bytes (converted, it would pass the check).
expect 2 "train with this model and batch needs about" train --n-layers 4096 --d-model 65536 --n-heads 1 \
  --seq-length 1048576 --batch-size 1048576 --vocab-size 128 --steps 2
expect 2 "train with this model and batch needs about" train --vocab-size 16777216 --d-model 8192 --n-heads 8 --steps 1
expect 2 "lower --vocab-size, --d-model, --n-layers, --seq-length or --batch-size" \
  train --vocab-size 1048576 --d-model 65536 --n-heads 8 --n-layers 1 --steps 1
# The estimate behind it is a lower bound: a run that fits uses at least that much.
"${MPIRUN[@]}" "$MTENGINE" train --vocab-size 4096 --d-model 128 --n-heads 4 --n-layers 2 --seq-length 64 \
  --batch-size 4 --steps 2 --warmup-steps 0 --threads 1 --output "$WORK/fits.json" >"$WORK/fits.out" 2>&1 ||
  { echo "FAIL: a small run that fits failed" >&2; cat "$WORK/fits.out" >&2; failures=$((failures + 1)); }
python3 - "$WORK/fits.json" <<'PY' || failures=$((failures + 1))
import json, sys
m = json.load(open(sys.argv[1]))["memory"]
assert 0 < m["host_need_lower_bound_bytes"] <= m["peak_rss_bytes"], m
print(f"ok: lower bound {m['host_need_lower_bound_bytes'] / 2**20:.1f} MiB <= peak {m['peak_rss_bytes'] / 2**20:.1f} MiB")
PY
expect 2 "mtengine train: unknown option '--no-such-flag'; \`mtengine train --help\` lists its options" train --no-such-flag 3
expect 2 "mtengine train: unknown option '--d-modle' (did you mean '--d-model'?); \`mtengine train --help\` lists its options" train --d-modle=64
expect 2 "mtengine train: unknown option '--layers' (did you mean '--n-layers'?)" train --layers 2
expect 2 "mtengine comm: unknown option '--op' (did you mean '--ops'?)" comm --op all_reduce
expect 2 "mtengine: unknown command 'trian' (did you mean 'train'?); \`mtengine --help\` lists the commands" trian
expect 2 "mtengine version does not take 'a', 'b'" version a b
expect 2 "mtengine train: Could not convert: --steps = notanumber; \`mtengine train --help\` says what it takes" train --steps notanumber
expect 2 "mtengine export: OUT is required; \`mtengine export --help\` says what it takes" export step_00000001
expect 2 "mtengine: a command is required; \`mtengine --help\` lists the commands"
expect 2 "mtengine: unknown option '--version' (did you mean 'version'?); \`mtengine --help\` lists the commands" --version

# Version information is JSON with the build facts.
"$MTENGINE" version --json >"$WORK/version.json" || failures=$((failures + 1))
python3 - "$WORK/version.json" <<'PY' || failures=$((failures + 1))
import json, sys
v = json.load(open(sys.argv[1]))
for key in ("libtorch", "mpi", "compiler", "build_type", "build_revision", "build_tree_dirty"):
    assert key in v, key
assert v["libtorch"].startswith("2."), v["libtorch"]
print("ok: version --json", v["libtorch"], "|", v["mpi"])
PY

# The description mtrun validates against: every flag once, with types and bounds, and each
# described default accepted by the engine itself.
"$MTENGINE" train --describe >"$WORK/describe.json" || failures=$((failures + 1))
"$MTENGINE" describe >"$WORK/engine.json" || failures=$((failures + 1))
python3 - "$WORK/describe.json" "$WORK/engine.json" <<'PY' || failures=$((failures + 1))
import json, sys
d = json.load(open(sys.argv[1]))
engine = json.load(open(sys.argv[2]))
assert d["subcommand"] == "train", d
flags = [o["flag"] for o in d["options"]]
assert len(flags) == len(set(flags)), "duplicate flags"
by_param = {o["param"]: o for o in d["options"]}
assert by_param["vocab_size"]["minimum"] == 2 and by_param["vocab_size"]["type"] == "integer"
strategies = [s["name"] for s in engine["strategies"]]
assert by_param["strategy"]["choices"] == strategies, (by_param["strategy"]["choices"], strategies)
assert {"ddp", "fsdp", "zero1", "zero2"} <= set(strategies), strategies
assert by_param["output"]["experiment_param"] is False
print("ok: train --describe,", len(flags), "flags")

# mtengine describe: every subcommand of the table, each option-table subcommand exactly as its
# own --describe prints it, every strategy with its auto sync mode, every collective with its
# bus factor (nccl-tests': 2(n-1)/n for all-reduce, (n-1)/n for the gathers and scatters).
subs = {s["name"]: s for s in engine["subcommands"]}
assert set(subs) == {"train", "comm", "moe", "tp", "groups", "verify", "export", "reshard", "tokens", "version", "doctor",
                     "describe"}, set(subs)
assert subs["train"]["options"] == d, "describe's train options differ from train --describe"
assert subs["version"]["options"] is None and subs["train"]["help"], subs["version"]
auto = {s["name"]: s["auto_gradient_sync_mode"] for s in engine["strategies"]}
assert auto["ddp"] == "last" and auto["fsdp"] == "every", auto
# One reference strategy, the one train --strategy defaults to (what mtrun compares the others with).
reference = [s["name"] for s in engine["strategies"] if s["reference"]]
assert reference == [by_param["strategy"]["default"]], (reference, by_param["strategy"]["default"])
coll = {c["name"]: c for c in engine["collectives"]}
assert set(coll) >= {"all_reduce", "all_gather", "reduce_scatter", "broadcast", "all_to_all"}, set(coll)
for n in range(2, 9):
    assert abs(coll["all_reduce"]["bus_factor"][str(n)] - 2 * (n - 1) / n) < 1e-12
    assert abs(coll["all_gather"]["bus_factor"][str(n)] - (n - 1) / n) < 1e-12
    assert coll["broadcast"]["bus_factor"][str(n)] == 1
assert coll["all_to_all"]["splits"] is True and coll["all_reduce"]["splits"] is False
print("ok: mtengine describe,", len(subs), "subcommands,", len(strategies), "strategies,", len(coll), "collectives")
PY

exit $((failures > 0))
