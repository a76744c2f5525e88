#!/usr/bin/env bash
# Checkpoint save and load time and bytes of the upstream 23.2M model on 2 ranks, per strategy,
# synchronous and --async-save (what training waits for: the host copy; the background write;
# copy to publication), beside what the disk does with the same bytes (dd with fdatasync: the write
# limit; reading back with the page cache dropped where allowed). One save of each kind and one
# resume per strategy.
#   benchmarks/checkpoint_io.sh [build/bin/mtengine] [SCRATCH_DIR]
set -euo pipefail
MTENGINE=${1:-build/bin/mtengine}
SCRATCH=${2:-$(mktemp -d "${TMPDIR:-/tmp}/mt-ckpt-io.XXXXXX")}
trap 'rm -rf "$SCRATCH"' EXIT
MPIRUN=(mpirun --allow-run-as-root --oversubscribe --mca pml ob1 --mca btl self,vader --bind-to none -np 2)
MODEL=(--vocab-size 8192 --d-model 512 --n-heads 8 --n-layers 6 --seq-length 256 --batch-size 2 --threads 1
       --warmup-steps 1)

printf '%-6s %11s %9s %9s %10s %10s %10s %8s %9s\n' strategy bytes sync_ms "sync_MB/s" async_wait \
  async_bg_ms async_all "wait/sync" load_ms
for strategy in $("$MTENGINE" describe | python3 -c \
    'import json, sys; print(" ".join(s["name"] for s in json.load(sys.stdin)["strategies"]))'); do
  dir="$SCRATCH/$strategy"
  "${MPIRUN[@]}" "$MTENGINE" train "${MODEL[@]}" --strategy "$strategy" --checkpoint-dir "$dir" --save-every 2 \
    --steps 2 --output "$SCRATCH/save.json" >/dev/null
  "${MPIRUN[@]}" "$MTENGINE" train "${MODEL[@]}" --strategy "$strategy" --checkpoint-dir "$dir" --save-every 2 \
    --resume "$dir/step_00000002" --steps 2 --output "$SCRATCH/load.json" >/dev/null
  rm -rf "$dir"
  # The async save of step 2 is written while steps 3 and 4 train.
  "${MPIRUN[@]}" "$MTENGINE" train "${MODEL[@]}" --strategy "$strategy" --checkpoint-dir "$dir" --save-every 2 \
    --steps 4 --async-save --output "$SCRATCH/async.json" >/dev/null
  python3 - "$SCRATCH/save.json" "$SCRATCH/load.json" "$SCRATCH/async.json" "$strategy" <<'PY'
import json, sys
save, load, run = (json.load(open(p)) for p in sys.argv[1:4])
s, a = save["checkpoint_saves"][-1], run["checkpoint_saves"][0]
mb = s["bytes"] / 1e6
print(f'{sys.argv[4]:<6} {s["bytes"]:>11} {s["save_ms"]:>9.1f} {mb / (s["save_ms"] / 1e3):>9.1f} '
      f'{a["save_ms"]:>10.1f} {a["background_ms"]:>10.1f} {a["total_ms"]:>10.1f} {a["save_ms"] / s["save_ms"]:>8.0%} '
      f'{load["checkpoint_load_ms"]:>9.1f}')
PY
  bytes=$(python3 -c "import json; print(json.load(open('$SCRATCH/save.json'))['checkpoint_saves'][-1]['bytes'])")
  rm -rf "$dir"
done
# The disk with the last strategy's byte count: one file, written and synced, then read back.
count=$(( (bytes + 1048575) / 1048576 ))
write=$(dd if=/dev/zero of="$SCRATCH/dd.bin" bs=1M count="$count" conv=fdatasync 2>&1 | tail -1)
sync; echo 3 > /proc/sys/vm/drop_caches 2>/dev/null && cache="page cache dropped" || cache="page cache warm"
read=$(dd if="$SCRATCH/dd.bin" of=/dev/null bs=1M 2>&1 | tail -1)
echo "dd write ${count} MiB + fdatasync: $write"
echo "dd read  ${count} MiB ($cache): $read"
