#!/usr/bin/env bash
# The GPU check, in one script for a lent single-GPU machine, about 8 minutes in all:
#   preflight  what the machine has: GPU, PyTorch, compilers, the packages scripts/setup.sh needs
#   setup      scripts/setup.sh (packages, the PyTorch wheel in .venv, the Release build); on a
#              machine that reaches no package registry, the machine's own PyTorch stands in for
#              the pinned wheel (the results record the version that ran)
#   gpu        nvidia-smi
#   doctor     mtengine doctor, mtrun doctor
#   h200       mtrun run experiments/h200_single.yaml       (mtengine vs PyTorch eager, 3 sizes)
#   slice      mtrun run experiments/a100_1gpu_slice.yaml   (the 1-GPU part of a100_matrix.yaml)
#   peer_only  only when the build failed: the PyTorch peer alone on the GPU, one run per size
#   reports    mtrun report for both campaigns
# Every phase has a time limit and the whole script a budget (MT_GPU_CHECK_BUDGET_S, default 480 s),
# with time kept back for the reports. mtrun records each trial as it ends, so an experiment cut
# short still reports what finished. Phases that need the build are skipped when it failed.
#
# Results go to $OUT (default: gpu-check-out/), at most 8 files: summary.txt, gpu_check.log (every
# phase's output), h200_single.sqlite, a100_1gpu_slice.sqlite, h200_single.md, a100_1gpu_slice.md,
# reports.tar.gz (the reports with their plots, laid out as under reports/, ready to commit with
# their databases) and runs.tar.gz (every attempt's log and result JSON). Without a build:
# summary.txt, gpu_check.log and peer_only.json. The summary is printed last.
#
# Exit codes: 0 every phase passed; 1 a phase failed or ran out of time; 2 bad usage.
set -uo pipefail

if [ "${1:-}" != --phase ] && [ $# -gt 0 ]; then
  case "$1" in
    -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "scripts/gpu_check.sh: takes no arguments (see --help)" >&2; exit 2 ;;
  esac
fi

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SELF="$ROOT/scripts/gpu_check.sh"
cd "$ROOT" || exit 1
BUILD_DIR=${BUILD_DIR:-build}
MTRUN="$ROOT/$BUILD_DIR/bin/mtrun"
MTENGINE="$ROOT/$BUILD_DIR/bin/mtengine"
# The H200 (and H100) are compute capability 9.0; CMake takes CUDAARCHS as its default.
export CUDAARCHS=${CUDAARCHS:-90}
# mpirun as root (lent machines run commands as root).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# The packages scripts/setup.sh installs, read from it so the two lists never differ.
setup_packages() {
  sed -n '/^PACKAGES=(/,/^)/p' scripts/setup.sh | sed -e '1s/^PACKAGES=(//' -e 's/#.*//' -e 's/)//' | tr -s ' \t' '\n' | sed '/^$/d'
}
missing_packages() {
  local p
  for p in $(setup_packages); do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || echo "$p"
  done
}
# Does pip's index answer? (A lent GPU machine often reaches nothing outside itself.)
registry_reachable() {
  local url=${PIP_INDEX_URL:-https://pypi.org/simple}
  timeout 15 python3 -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=8).close()' \
    "${url%/}/" > /dev/null 2>&1
}
# The first python that imports a CUDA-enabled torch: the checkout's .venv, then the machine's.
torch_python() {
  local py
  for py in "$ROOT/.venv/bin/python" "$(command -v python3)" /usr/bin/python3; do
    [ -x "$py" ] || continue
    if "$py" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' > /dev/null 2>&1; then
      echo "$py"; return 0
    fi
  done
  return 1
}

# ---- phases that take several steps run as `gpu_check.sh --phase NAME`, under `timeout` ---------
phase_preflight() {
  echo "revision: $(git rev-parse HEAD 2>/dev/null || echo 'not a git checkout')"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || echo "nvidia-smi: not working"
  for tool in nvcc cmake ninja mpirun python3; do
    printf '%-8s %s\n' "$tool" "$(command -v "$tool" > /dev/null && "$tool" --version 2>&1 | grep -m1 -iE 'version|[0-9]+\.[0-9]+' || echo missing)"
  done
  local py
  if py=$(torch_python); then
    echo "torch: $("$py" -c 'import torch; print(torch.__version__, "cuda", torch.version.cuda, torch.cuda.get_device_name(0))') ($py)"
  else
    echo "torch: no python here imports a CUDA-enabled torch"
  fi
  if registry_reachable; then echo "package registry: reachable"; else echo "package registry: not reachable"; fi
  local missing
  missing=$(missing_packages | xargs)
  echo "packages scripts/setup.sh needs that are missing: ${missing:-none}"
}

phase_setup() {
  if registry_reachable; then
    scripts/setup.sh
    return
  fi
  echo "setup: no package registry reachable; building with what this machine has"
  local missing
  missing=$(missing_packages | xargs)
  if [ -n "$missing" ]; then
    echo "setup: these packages are missing and cannot be installed here: $missing"
    echo "setup: use a machine that reaches its apt mirror, or an image that has them (docker/Dockerfile)"
    return 1
  fi
  if ! "$ROOT/.venv/bin/python" -c 'import torch' > /dev/null 2>&1; then
    local py prefix base
    py=$(torch_python) || { echo "setup: no python with a CUDA-enabled torch on this machine"; return 1; }
    prefix=$("$py" -c 'import sys; print(sys.prefix)')
    base=$("$py" -c 'import sys; print(sys.base_prefix)')
    if [ -e "$ROOT/.venv" ]; then
      echo "setup: $ROOT/.venv exists but cannot import torch; move it away and run again"
      return 1
    fi
    mkdir "$ROOT/.venv"
    if [ "$prefix" != "$base" ]; then
      # The machine's PyTorch lives in a virtual environment: .venv becomes a view of it (links to
      # its bin/, lib/, pyvenv.cfg…), which Python treats as that environment.
      local entry
      for entry in "$prefix"/* "$prefix"/pyvenv.cfg; do
        [ -e "$entry" ] && ln -sfn "$entry" "$ROOT/.venv/$(basename "$entry")"
      done
    else
      "$py" -m venv --system-site-packages --without-pip "$ROOT/.venv"
    fi
  fi
  echo "setup: PyTorch $("$ROOT/.venv/bin/python" -c 'import torch; print(torch.__version__)') of this machine stands in for $(grep -v '^#' scripts/python-requirements.txt | xargs)"
  # setup.sh installs the pin when .venv/.mt-requirements differs from it; there is nothing to install from.
  cp scripts/python-requirements.txt "$ROOT/.venv/.mt-requirements"
  MT_VENV="$ROOT/.venv" scripts/setup.sh
}

phase_doctor() {
  local rc=0
  "$MTENGINE" version --json || rc=1
  "$MTENGINE" doctor || rc=1
  "$MTRUN" --db "$WORK/doctor.sqlite" doctor || rc=1
  return "$rc"
}

phase_peer_only() {
  local py shape rc=0
  py=$(torch_python) || { echo "peer_only: no python with a CUDA-enabled torch"; return 1; }
  # The three sizes of experiments/h200_single.yaml: d_model n_heads n_layers seq_length batch_size.
  local d h l s b
  for shape in "512 8 6 256 2" "1024 16 12 1024 8" "1536 12 16 2048 4"; do
    read -r d h l s b <<< "$shape"
    "$py" benchmarks/pytorch_ddp_peer.py --device cuda --precision bf16 --vocab-size 8192 \
      --d-model "$d" --n-heads "$h" --n-layers "$l" --seq-length "$s" --batch-size "$b" \
      --steps 30 --warmup-steps 10 --output "$WORK/peer_d$d.json" || rc=1
  done
  return "$rc"
}

if [ "${1:-}" = --phase ]; then
  WORK=${MT_GPU_CHECK_WORK:?}
  case "${2:-}" in
    preflight) phase_preflight ;;
    setup) phase_setup ;;
    doctor) phase_doctor ;;
    peer_only) phase_peer_only ;;
    *) echo "scripts/gpu_check.sh: no phase '${2:-}'" >&2; exit 2 ;;
  esac
  exit $?
fi

# ---- the driver ------------------------------------------------------------------------------
OUT=${OUT:-$ROOT/gpu-check-out}
mkdir -p "$OUT"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/gpu-check.XXXXXX")
export MT_GPU_CHECK_WORK=$WORK
DB="$WORK/db"   # copied into $OUT at the end, each as one file (no -wal left by a stopped run)
mkdir -p "$DB"
LOG="$OUT/gpu_check.log"
: > "$LOG"
BUDGET=${MT_GPU_CHECK_BUDGET_S:-480}
START=$(date +%s)
SUMMARY=()
FAILED=0

# phase NAME LIMIT_S RESERVE_S COMMAND...: runs COMMAND for at most LIMIT_S seconds, and never into
# the last RESERVE_S seconds of the budget (kept for the phases after it). Its output goes to the
# log; a phase that fails shows its last lines here.
phase() {
  local name=$1 limit=$2 reserve=$3; shift 3
  local left=$((BUDGET - ($(date +%s) - START) - reserve))
  [ "$left" -lt "$limit" ] && limit=$left
  if [ "$limit" -lt 5 ]; then
    SUMMARY+=("$(printf '%-10s %-22s %4s s' "$name" "skipped: no time left" 0)")
    FAILED=1
    return 1
  fi
  echo "== $name (at most ${limit} s)"
  local t0 rc status
  t0=$(date +%s)
  {
    echo "===== $name: $* (limit ${limit} s, $(date -u +%H:%M:%S) UTC)"
  } >> "$LOG"
  timeout -k 15 "$limit" "$@" > "$WORK/$name.log" 2>&1
  rc=$?
  cat "$WORK/$name.log" >> "$LOG"
  case "$rc" in
    0) status=ok ;;
    124|137) status="timed out"; FAILED=1 ;;
    *) status="failed (exit $rc)"; FAILED=1 ;;
  esac
  echo "----- $name: $status after $(($(date +%s) - t0)) s" >> "$LOG"
  SUMMARY+=("$(printf '%-10s %-22s %4s s' "$name" "$status" "$(($(date +%s) - t0))")")
  if [ "$rc" -ne 0 ]; then
    echo "   $name $status; its last lines:"
    tail -n 12 "$WORK/$name.log" | cut -c1-240 | sed 's/^/   | /'
  fi
  return "$rc"
}
skip() {
  SUMMARY+=("$(printf '%-10s %-22s %4s s' "$1" "skipped: $2" 0)")
}

phase preflight 30 420 bash "$SELF" --phase preflight
cat "$WORK/preflight.log" 2> /dev/null
built=0
if phase setup 200 250 bash "$SELF" --phase setup && [ -x "$MTRUN" ] && [ -x "$MTENGINE" ]; then
  built=1
fi
phase gpu 15 230 nvidia-smi
if [ "$built" -eq 1 ]; then
  phase doctor 40 200 bash "$SELF" --phase doctor
  phase h200 150 110 "$MTRUN" --db "$DB/h200_single.sqlite" run experiments/h200_single.yaml
  phase slice 80 30 "$MTRUN" --db "$DB/a100_1gpu_slice.sqlite" run experiments/a100_1gpu_slice.yaml
  mkdir -p "$WORK/reports"
  for name in h200_single a100_1gpu_slice; do
    if [ -f "$DB/$name.sqlite" ]; then
      phase "report_${name%%_*}" 15 0 "$MTRUN" --db "$DB/$name.sqlite" report -o "$WORK/reports/$name.md" \
        && cp "$WORK/reports/$name.md" "$OUT/$name.md"
    else
      skip "report_${name%%_*}" "no database"
    fi
  done
  tar -C "$WORK" -czf "$OUT/reports.tar.gz" reports
  # Every attempt's log and result JSON, for what the summary cannot say.
  [ -d "$DB/runs" ] && tar -C "$DB" -czf "$OUT/runs.tar.gz" runs
else
  skip doctor "no build"
  skip h200 "no build"
  skip slice "no build"
  phase peer_only 90 10 bash "$SELF" --phase peer_only
  if compgen -G "$WORK/peer_d*.json" > /dev/null; then cat "$WORK"/peer_d*.json > "$OUT/peer_only.json"; fi
fi

# ---- the summary -----------------------------------------------------------------------------
{
  echo "gpu_check: $(date -u +%Y-%m-%dT%H:%M:%SZ), $(($(date +%s) - START)) s of a ${BUDGET} s budget"
  grep -E '^(revision|torch|package registry|packages)' "$WORK/preflight.log" 2> /dev/null
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2> /dev/null | sed 's/^/gpu: /'
  echo
  printf '%s\n' "${SUMMARY[@]}"
  for name in h200_single a100_1gpu_slice; do
    [ -f "$DB/$name.sqlite" ] || continue
    echo
    echo "$name: trials by state, mean tokens/s where measured"
    "$MTRUN" --db "$DB/$name.sqlite" query "select t.study, json_extract(t.parameters, '$.strategy') as strategy, json_extract(t.parameters, '$.d_model') as d_model, json_extract(t.parameters, '$.gradient_sync_mode') as sync, a.state, count(*) as n, round(avg(m.value)) as tokens_per_sec from trials t join latest_attempts a on a.trial_id = t.id left join metrics m on m.attempt_id = a.id and m.name = 'tokens_per_sec' group by 1, 2, 3, 4, 5 order by cast(d_model as integer), 2, 4, 1" 2>&1
  done
  if [ -f "$OUT/peer_only.json" ]; then
    echo
    echo "PyTorch eager alone (no build): see peer_only.json"
  fi
} > "$OUT/summary.txt"
for db in "$DB"/*.sqlite; do
  [ -f "$db" ] || continue
  python3 -c 'import sqlite3, sys; sqlite3.connect(sys.argv[1]).backup(sqlite3.connect(sys.argv[2]))' \
    "$db" "$OUT/$(basename "$db")" 2>> "$LOG" || cp "$db" "$OUT/"
done
echo
cat "$OUT/summary.txt"
rm -rf "$WORK"
exit "$FAILED"
