#!/usr/bin/env bash
# Numerics features end to end on 2 ranks: bf16 compute (with fp32 and bf16 gradient
# reduction) trains to a loss close to fp32's; activation checkpointing reproduces the plain
# run's losses; the cosine schedule and clipping are recorded; a non-finite gradient stops every
# rank before the optimizer step with exit 1; the dense layers' GEMMs are timed and counted; the
# OpenMP wait policy follows the thread layout; each rank reports its host's load over the job.
set -uo pipefail
MTENGINE=${1:?usage: train_features_test.sh PATH/TO/mtengine}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
MPIRUN=(mpirun --allow-run-as-root --oversubscribe --mca pml ob1 --mca btl self,vader -np 2)
TINY_MODEL=(--vocab-size 64 --d-model 32 --n-heads 4 --n-layers 2 --seq-length 16 --batch-size 2
            --steps 4 --warmup-steps 1)
TINY=("${TINY_MODEL[@]}" --threads 1)
set -e
for strategy in ddp fsdp; do
  "${MPIRUN[@]}" "$MTENGINE" train "${TINY[@]}" --strategy $strategy --output "$WORK/$strategy-fp32.json" >/dev/null
  "${MPIRUN[@]}" "$MTENGINE" train "${TINY[@]}" --strategy $strategy --precision bf16 --output "$WORK/$strategy-bf16.json" >/dev/null
  "${MPIRUN[@]}" "$MTENGINE" train "${TINY[@]}" --strategy $strategy --precision bf16 --grad-reduce-dtype bf16 --output "$WORK/$strategy-bf16r.json" >/dev/null
  "${MPIRUN[@]}" "$MTENGINE" train "${TINY[@]}" --strategy $strategy --activation-checkpointing --output "$WORK/$strategy-ckpt.json" >/dev/null
done
# OpenMP waiting: libgomp's own where the threads fit the cores, PASSIVE where they oversubscribe them.
ONE_RANK=(mpirun --allow-run-as-root --oversubscribe --mca pml ob1 --mca btl self,vader -np 1)
env -u OMP_WAIT_POLICY "${ONE_RANK[@]}" "$MTENGINE" train "${TINY[@]}" --output "$WORK/fits.json" >/dev/null
env -u OMP_WAIT_POLICY "${ONE_RANK[@]}" "$MTENGINE" train "${TINY_MODEL[@]}" --threads $((4 * $(nproc --all))) \
  --output "$WORK/oversubscribed.json" >/dev/null
"${MPIRUN[@]}" "$MTENGINE" train "${TINY[@]}" --lr-scheduler cosine --lr-warmup-steps 2 --min-learning-rate 1e-5 \
  --max-grad-norm 0.05 --output "$WORK/sched.json" >/dev/null
set +e
python3 - "$WORK" <<'PY'
import json, math, sys
w = sys.argv[1]
load = lambda n: json.load(open(f"{w}/{n}.json"))
for s in ("ddp", "fsdp"):
    fp32, bf16, bf16r, ckpt = (load(f"{s}-{k}") for k in ("fp32", "bf16", "bf16r", "ckpt"))
    for r in (bf16, bf16r):
        assert r["status"] == "ok" and r["precision"] == "bf16"
        assert abs(r["loss"] - fp32["loss"]) / fp32["loss"] < 0.02, (s, r["loss"], fp32["loss"])
    assert bf16r["grad_reduce_dtype"] == "bf16"
    assert ckpt["activation_checkpointing"] is True
    diff = max(abs(a - b) for a, b in zip(ckpt["per_step"]["loss"], fp32["per_step"]["loss"]))
    assert diff < 1e-5, (s, diff)
    print(f"ok: {s}: fp32 loss {fp32['loss']:.5f}, bf16 {bf16['loss']:.5f}, bf16 reduce {bf16r['loss']:.5f}, checkpointing diff {diff:.2e}")
    # The dense layers' GEMMs are timed and counted exactly: per rank and step 3 products
    # (forward, input and weight gradients) of 2·M·in·out FLOPs for each of a block's 12·d² weights
    # and the d·V LM head, M = 2 × 16 tokens; checkpointing recomputes the blocks' forwards. bf16
    # runs their GEMMs through ATen under autocast where the CPU has bf16 instructions: none then.
    M, d, L, V = 2 * 16, 32, 2, 64
    want = {"fp32": 6 * M * (12 * L * d * d + d * V), "ckpt": 6 * M * (12 * L * d * d + d * V) + 2 * M * 12 * L * d * d}
    for k, r in (("fp32", fp32), ("ckpt", ckpt), ("bf16", bf16)):
        g = r["mfu"].get("dense_gemm")
        if k == "bf16" and g is None: continue
        assert g["flops_per_step"] == want.get(k, want["fp32"]), (s, k, g, want)
        assert 0 < g["ms_per_step"] and 0 < g["share_of_step"] < 1, (s, k, g)
        assert abs(g["share_of_step"] - g["ms_per_step"] / r["step_time_ms"]) < 1e-9, (s, k, g)
        assert abs(g["gflops"] - 2 * g["flops_per_step"] / g["ms_per_step"] / 1e6) < 1e-6 * g["gflops"], (s, k, g)
    # Per shape, rank 0's products in a measured step: their FLOPs add up to the step's, each
    # shape's to 2·m·n·k times its calls (a whole number), and each has its own time and speed.
    for k, r in (("fp32", fp32), ("ckpt", ckpt)):
        shapes = r["environment"]["gemm_backends"]
        assert all(x["step_ms"] > 0 and x["step_gflops"] > 0 for x in shapes), (s, k, shapes)
        flops = [x["step_gflops"] * 1e9 * x["step_ms"] / 1e3 for x in shapes]
        assert abs(sum(flops) - want[k]) < 1e-6 * want[k], (s, k, sum(flops), want[k])
        calls = [f / (2 * x["m"] * x["n"] * x["k"]) for f, x in zip(flops, shapes)]
        assert all(abs(c - round(c)) < 1e-6 and round(c) >= 1 for c in calls), (s, k, calls)
        assert abs(sum(x["step_ms"] for x in shapes) - r["mfu"]["dense_gemm"]["ms_per_step"]) < 0.5 * r["mfu"]["dense_gemm"]["ms_per_step"], (s, k)
    # MFU's calibrated peak: in fp32 the fastest of the model's shapes at start-up on its chosen
    # library, times the ranks (the table is rank 0's, measured on its threads); in bf16, with no
    # table, the SGEMM probe per thread times threads and ranks.
    shapes = fp32["environment"]["gemm_backends"]
    fastest = max(x[x["backend"] + "_gflops"] for x in shapes)
    backend = max(shapes, key=lambda x: x[x["backend"] + "_gflops"])["backend"]
    m = fp32["mfu"]
    assert m["calibrated_peak_source"] == "model_gemm_shapes" and m["calibrated_peak_backend"] == backend, (s, m)
    assert abs(m["calibrated_peak_gflops"] - 2 * fastest) < 1e-9 * fastest, (s, m, fastest)
    m, env = bf16["mfu"], bf16["environment"]
    if not env.get("gemm_backends"):
        probe = env["blas_gflops_per_thread"] * bf16["threads_per_rank"] * 2
        assert m["calibrated_peak_source"] == "sgemm_probe", (s, m)
        assert abs(m["calibrated_peak_gflops"] - probe) < 1e-9 * probe, (s, m, probe)
    print(f"ok: {s}: dense GEMMs {fp32['mfu']['dense_gemm']['ms_per_step']:.3f} ms a step, "
          f"{100 * fp32['mfu']['dense_gemm']['share_of_step']:.0f} % of it")
fits, over = load("fits"), load("oversubscribed")
assert fits["omp_wait_policy"] == "" and over["omp_wait_policy"] == "PASSIVE", (fits["omp_wait_policy"], over["omp_wait_policy"])
assert over["threads_per_rank"] > fits["threads_per_rank"] == 1, (over["threads_per_rank"], fits["threads_per_rank"])
print(f"ok: OpenMP waiting: 1 thread: libgomp's default; {over['threads_per_rank']} threads: PASSIVE")
r = load("sched")
lrs = r["per_step"]["learning_rate"]
assert lrs[0] < lrs[1] and lrs[-1] < lrs[1] and lrs[-1] >= 1e-5, lrs
assert all(g > 0 and math.isfinite(g) for g in r["per_step"]["grad_norm"]), r["per_step"]["grad_norm"]
print("ok: cosine lr", [f"{x:.2e}" for x in lrs], "grad norms", [f"{x:.3f}" for x in r["per_step"]["grad_norm"]])
# Every launch calibrates the machine: memory copy bandwidth, and on several ranks the latency floor.
cal, gbps = r["calibration"]["allreduce_8_bytes_us"], r["environment"]["memory_copy_gbps_per_thread"]
assert 0 < cal < 1e6 and 0 < gbps < 1e4, (cal, gbps)
print(f"ok: calibration: 8-byte all-reduce {cal:.1f} us, memory copy {gbps:.1f} GB/s per thread")
# Each rank's view of its host while the job ran: this machine's kernel, its CPUs, a busy time that
# holds the ranks' own CPU (up to /proc/stat's rounding: a 10-ms tick per CPU at each end).
windows = r["rank_host_window"]
boot_id = open("/proc/sys/kernel/random/boot_id").read().strip()
cpus = sum(1 for line in open("/proc/stat") if line[:3] == "cpu" and line[3].isdigit())
assert len(windows) == len(r["hosts"]) == 2, windows
for w in windows:
    assert w["boot_id"] == boot_id and w["cpus"] == cpus and w["wall_s"] > 0 and w["steal_pct"] >= 0, (w, boot_id, cpus)
    assert 0 < w["own_cpu_s"] and w["busy_cpu_s"] >= 0, w
own = sum(w["own_cpu_s"] for w in windows)
assert own <= windows[0]["busy_cpu_s"] + 2 * 0.01 * cpus + 0.01, (own, windows)
print(f"ok: host windows: {windows[0]['busy_cpu_s']:.2f} s busy over {windows[0]['wall_s']:.2f} s, the ranks' own {own:.2f} s")
PY
[[ $? == 0 ]] || { echo "FAIL: features" >&2; exit 1; }

# bf16 gradients overflow past ~3e38: a huge loss scale in fp32 cannot be represented. Simpler
# and deterministic: an absurd learning rate makes the weights, then the gradients, non-finite.
"${MPIRUN[@]}" "$MTENGINE" train "${TINY[@]}" --strategy fsdp --learning-rate 1e20 \
  --output "$WORK/bad.json" >"$WORK/out" 2>&1
rc=$?
[[ $rc == 1 ]] || { echo "FAIL: exit $rc, want 1" >&2; cat "$WORK/out" >&2; exit 1; }
python3 - "$WORK/bad.json" <<'PY' || exit 1
import json, sys
e = json.load(open(sys.argv[1]))["error"]
assert e["policy"] == "all_rank_fail_fast" and "before the optimizer step" in e["reason"], e
print("ok: fsdp non-finite ->", e["reason"])
PY

# The start-up GEMM measurement sees a busy machine even where a small model's shapes take a few
# ms (/proc/stat counts 10 ms ticks): with a busy loop on every CPU and a fact cache of its own,
# every shape says it was measured on a busy machine, and no answer is kept for later launches as a
# quiet one. The first busy answer stands in for the next busy launch (which computes alike), until
# a quiet launch measures again and keeps its answer.
HOGS=()
for _ in $(seq "$(nproc)"); do timeout 120 sh -c 'while :; do :; done' & HOGS+=($!); done
rc=0
for run in busy busy-again; do
  MT_CACHE_DIR="$WORK/busy-cache" "${ONE_RANK[@]}" "$MTENGINE" train "${TINY[@]}" --output "$WORK/$run.json" \
    >/dev/null || rc=$?
done
kill "${HOGS[@]}" 2>/dev/null
wait "${HOGS[@]}" 2>/dev/null
[ "$rc" -eq 0 ] || { echo "FAIL: a run beside busy loops: exit $rc"; exit 1; }
# Each fact's file begins with its key.
cache_keys() { for fact in "$WORK"/busy-cache/fact-*; do head -n1 "$fact"; done; }
grep -q "^gemm backends" <<<"$(cache_keys)" && { echo "FAIL: an answer measured on a busy machine was kept as quiet"; exit 1; }
grep -q "^stand-in measured busy|gemm backends" <<<"$(cache_keys)" || { echo "FAIL: no stand-in was kept"; exit 1; }
MT_CACHE_DIR="$WORK/busy-cache" "${ONE_RANK[@]}" "$MTENGINE" train "${TINY[@]}" --output "$WORK/quiet.json" >/dev/null ||
  { echo "FAIL: the run after the busy loops"; exit 1; }
python3 - "$WORK/busy.json" "$WORK/busy-again.json" "$WORK/quiet.json" <<'PY' || exit 1
import json, sys
busy, again, quiet = (json.load(open(p))["environment"]["gemm_backends"] for p in sys.argv[1:])
assert busy and all("busy" in s.get("measured_on_busy_machine", "") for s in busy), busy
assert not any(s.get("speeds_from_earlier_launch") for s in busy), busy
print(f"ok: beside a busy loop on every CPU, all {len(busy)} shapes were measured on a busy machine")
assert all("busy" in s.get("measured_on_busy_machine", "") for s in again), again
assert all(s.get("speeds_from_earlier_launch") is True for s in again), again
speeds = lambda shapes: [(s["shape"], s["mkl_gflops"], s["onednn_gflops"], s["backend"]) for s in shapes]
assert speeds(again) == speeds(busy), (speeds(busy), speeds(again))
print("ok: the next busy launch took the first one's answer, backends included")
if any("measured_on_busy_machine" in s for s in quiet):
    print("skipped: the machine was still busy for the launch after the loops")
else:
    assert not any(s.get("speeds_from_earlier_launch") for s in quiet), quiet
    print("ok: a quiet launch measured again and did not take the stand-in")
PY
if ! grep -q measured_on_busy_machine "$WORK/quiet.json"; then
  grep -q "^gemm backends" <<<"$(cache_keys)" || { echo "FAIL: the quiet launch kept no answer"; exit 1; }
  echo "ok: and kept its answer"
fi

# A kept answer is two speeds as the engine wrote them. One damaged or edited by hand (a word, a
# lone number, a non-finite speed, a negative one) is no answer: that shape is measured again, and
# every other shape still reads its own (a misread line once left every later shape at zero).
damaged=0
for fact in "$WORK"/busy-cache/fact-*; do
  grep -q "gemm backends" <<<"$(head -n1 "$fact")" || continue
  values=("x" "12" "inf nan" "-1 5" "7 8 9")
  printf '%s\n%s\n' "$(head -n1 "$fact")" "${values[$((damaged % ${#values[@]}))]}" >"$fact"
  damaged=$((damaged + 1))
done
[ "$damaged" -gt 0 ] || { echo "FAIL: no kept GEMM answer to damage"; exit 1; }
MT_CACHE_DIR="$WORK/busy-cache" "${ONE_RANK[@]}" "$MTENGINE" train "${TINY[@]}" --output "$WORK/damaged.json" \
  >/dev/null || { echo "FAIL: a run over a damaged fact cache"; exit 1; }
python3 - "$WORK/damaged.json" "$damaged" <<'PY' || exit 1
import json, math, sys
shapes = json.load(open(sys.argv[1]))["environment"]["gemm_backends"]
for s in shapes:
    assert all(math.isfinite(s[k]) and s[k] > 0 for k in ("mkl_gflops", "onednn_gflops")), s
print(f"ok: over {sys.argv[2]} damaged answers in the fact cache, all {len(shapes)} shapes have speeds of their own")
PY
