#!/usr/bin/env bash
# The GPU path is compiled and linked into every build, also on machines without a GPU: the NCCL
# backend is registered, links the PyTorch wheel's NCCL, and without a usable GPU a `--backend
# nccl` run stops at once on every rank as bad input (exit 2: a retry cannot help), saying that
# NCCL needs a CUDA device, which rank and host has none, and that --backend mpi runs on the CPU,
# with an error result written; never a crash.
set -uo pipefail
MTENGINE=${1:?usage: gpu_build_test.sh PATH/TO/mtengine}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

doctor=$(mpirun --allow-run-as-root -np 1 "$MTENGINE" doctor 2>&1) || fail "doctor failed: $doctor"
grep -qF "backends         mpi, nccl (built: cuda yes, nccl yes)" <<<"$doctor" ||
  fail "the NCCL backend is not built in: $(grep backends <<<"$doctor")"
# Not `ldd | grep -q`: under pipefail, grep leaving at the first match can fail ldd with SIGPIPE.
libraries=$(ldd "$MTENGINE") || fail "ldd $MTENGINE failed"
grep -qF 'nvidia/nccl/lib/libnccl.so.2' <<<"$libraries" || fail "mtengine does not load the wheel's NCCL"
echo "ok: NCCL backend built; $(grep -F 'nccl    ' <<<"$doctor" | xargs)"

if grep -qF "gpus             none" <<<"$doctor"; then
  for ranks in 1 2; do
    mpirun --allow-run-as-root --oversubscribe -np "$ranks" "$MTENGINE" train --backend nccl --steps 1 \
      --warmup-steps 0 --output "$WORK/r.json" >"$WORK/out" 2>&1
    rc=$?
    [ "$rc" -eq 2 ] || fail "--backend nccl without a GPU on $ranks rank(s): exit $rc, want 2: $(cat "$WORK/out")"
    grep -qE "^mtengine train: --backend nccl needs a CUDA device for each rank, and none is visible to rank 0 on host '[^']+' \(no .*\); use --backend mpi to run on the CPU$" \
      "$WORK/out" || fail "unclear message: $(cat "$WORK/out")"
    python3 - "$WORK/r.json" <<'PY' || fail "no error result"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["status"] == "error" and r["error"]["reason"].startswith("--backend nccl needs a CUDA device"), r["error"]
print("ok: --backend nccl without a GPU:", r["error"]["reason"])
PY
  done
fi
