#!/usr/bin/env python3
"""Gloo peer of `mtengine comm`: the same collectives, message sizes, placements, all-to-all splits,
input patterns and output checks, through torch.distributed with the Gloo backend of the setup's
PyTorch (.venv/bin/python), launched by mpirun (rank and size from Open MPI's environment; the
ranks meet through a file store beside the result file, named after the job):

  mpirun -np 4 .venv/bin/python benchmarks/gloo_collectives_peer.py --min-bytes 1024 \
      --max-bytes 67108864 --step-factor 4 --output gloo.json

Flags and rules as mtengine comm and benchmarks/mpi_collectives_peer.c: a message of B bytes is the
buffer for all_reduce and broadcast, the gathered buffer for all_gather, the input for
reduce_scatter and what a rank sends in all for all_to_all; latency is the MAX over ranks of each
rank's mean time per call (blocking calls, time.perf_counter); busbw = algbw x the nccl-tests
factor; every output element of one more call on fresh inputs is checked, and any wrong value makes
the program exit 1. A form torch.distributed does not offer (all_reduce and broadcast work in place
only) or Gloo refuses is reported as a row with "unsupported": true and the reason, never dropped.
Prints one line per row; rank 0 writes the rows as a result JSON (`rows`, as mtengine comm does).
Freed memory is kept for reuse as mtengine keeps it (peer_environment.py), so a collective that
allocates a scratch buffer per call is measured on the same terms on both sides.
"""
import argparse
import json
import os
import sys
import time

import torch
import torch.distributed as dist

from peer_environment import HostWindow, default_threads, environment, gather_hostnames, keep_freed_memory_for_reuse

# mtengine's table, in its order: in place, out of place, splits, per-rank blocks, busbw factor.
OPS = {
    "all_reduce": (True, True, False, False, lambda n: 2.0 * (n - 1) / n),
    "all_gather": (True, True, False, True, lambda n: (n - 1) / n),
    "reduce_scatter": (False, True, False, True, lambda n: (n - 1) / n),
    "broadcast": (True, False, False, False, lambda n: 1.0),
    "all_to_all": (False, True, True, True, lambda n: (n - 1) / n),
}
IN_PLACE_ONLY = {"all_reduce": "torch.distributed.all_reduce works in place only"}


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--ops", default="all")
    p.add_argument("--sizes", default="")
    p.add_argument("--min-bytes", type=int, default=1024)
    p.add_argument("--max-bytes", type=int, default=64 << 20)
    p.add_argument("--step-factor", type=float, default=2.0)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--iters", type=int, default=20)
    p.add_argument("--timed-bytes", type=int, default=0,
                   help="more timed iterations for small messages: at least this many bytes per size (0: --iters)")
    p.add_argument("--placement", choices=["in_place", "out_of_place", "both"], default="both")
    p.add_argument("--split", choices=["equal", "uneven", "both"], default="both")
    p.add_argument("--output", default="")
    a = p.parse_args()
    unknown = [op for op in a.ops.split(",") if a.ops != "all" and op and op not in OPS]
    if unknown:
        p.error(f"--ops: unknown collective '{unknown[0]}' (known: {', '.join(OPS)})")
    if a.sizes:
        items = a.sizes.split(",")
        if "" in items:
            p.error(f"--sizes '{a.sizes}' has an empty item between commas")
        a.size_list = []
        for item in items:
            if not item.isdigit() or int(item) < 4:
                p.error(f"--sizes: '{item}' is not a size of at least 4 bytes")
            if int(item) in a.size_list:
                p.error(f"--sizes: {int(item)} is given twice (each size is measured once)")
            a.size_list.append(int(item))
    if a.step_factor <= 1 or a.min_bytes < 4 or a.min_bytes > a.max_bytes or a.iters < 1 or a.warmup < 0 \
            or a.timed_bytes < 0:
        p.error("need 4 <= --min-bytes <= --max-bytes, --step-factor > 1, --iters >= 1, --warmup >= 0, "
                "--timed-bytes >= 0")
    return a


def message_sizes(a):
    if a.sizes:
        return a.size_list  # read and checked by parse_args
    sizes, size = [], float(a.min_bytes)
    while size <= a.max_bytes * (1 + 1e-9):
        sizes.append(int(size))
        size *= a.step_factor
    return sizes


class Shape:
    def __init__(self, op, rank, world, count, in_place, split):
        self.op, self.rank, self.world, self.count, self.in_place, self.split = op, rank, world, count, in_place, split

    def sent(self, frm, to):
        return self.count + (frm + to) % self.world if self.split == "uneven" else self.count

    def send_counts(self):
        return [self.sent(self.rank, p) for p in range(self.world)]

    def recv_counts(self):
        return [self.sent(p, self.rank) for p in range(self.world)]

    def send_count(self):
        if self.op == "all_gather":
            return self.count * self.world if self.in_place else self.count
        if self.op == "reduce_scatter":
            return self.count * self.world
        return sum(self.send_counts()) if self.op == "all_to_all" else self.count

    def recv_count(self):
        if self.op == "all_gather":
            return self.count * self.world
        if self.op == "reduce_scatter":
            return self.count
        return sum(self.recv_counts()) if self.op == "all_to_all" else self.count


def bench_values(rank, n, start=0):
    """Input element i of rank r: (r + 1)(1 + i mod 7), small integers so every sum is exact."""
    return ((rank + 1) * (1 + torch.arange(start, start + n, dtype=torch.int64) % 7)).float()


def bench_sums(world, n, start=0):
    return (world * (world + 1) // 2 * (1 + torch.arange(start, start + n, dtype=torch.int64) % 7)).float()


def tags(frm, to, n):
    """All-to-all elements encode sender, receiver and index."""
    return (frm * 64 + to) * 1024.0 + (torch.arange(n, dtype=torch.int64) % 1024).float()


def fill(s):
    if s.op == "all_to_all":
        return torch.cat([tags(s.rank, p, s.sent(s.rank, p)) for p in range(s.world)])
    if s.op == "all_gather" and s.in_place:
        full = torch.zeros(s.count * s.world)
        full[s.rank * s.count:(s.rank + 1) * s.count] = bench_values(s.rank, s.count)
        return full
    return bench_values(s.rank, s.send_count())


def expected(s):
    if s.op == "all_reduce":
        return bench_sums(s.world, s.count)
    if s.op == "all_gather":
        return torch.cat([bench_values(r, s.count) for r in range(s.world)])
    if s.op == "reduce_scatter":
        return bench_sums(s.world, s.count, s.rank * s.count)
    if s.op == "broadcast":
        return bench_values(0, s.count)
    return torch.cat([tags(p, s.rank, s.sent(p, s.rank)) for p in range(s.world)])


def issue(s, send, recv):
    out = send if s.in_place else recv
    if s.op == "all_reduce":
        dist.all_reduce(send)
    elif s.op == "all_gather":
        mine = send[s.rank * s.count:(s.rank + 1) * s.count] if s.in_place else send
        dist.all_gather_into_tensor(out, mine)
    elif s.op == "reduce_scatter":
        dist.reduce_scatter_tensor(out, send)
    elif s.op == "broadcast":
        dist.broadcast(send, 0)
    elif s.split == "uneven":
        dist.all_to_all_single(out, send, output_split_sizes=s.recv_counts(), input_split_sizes=s.send_counts())
    else:
        dist.all_to_all_single(out, send)


def measure(a, s):
    """One row; None for the latency when the form is unsupported (with the reason)."""
    message_bytes = max(s.send_count(), s.recv_count()) * 4
    row = {"operation": s.op, "bytes": message_bytes, "count": s.count, "dtype": "f32", "in_place": s.in_place,
           "split": s.split}
    if not s.in_place and s.op in IN_PLACE_ONLY:
        return dict(row, unsupported=True, reason=IN_PLACE_ONLY[s.op])
    source = fill(s)
    send, recv = source.clone(), None if s.in_place else torch.empty(s.recv_count())
    try:
        issue(s, send, recv)  # the first call, untimed: Gloo refuses what it lacks on every rank alike
    except RuntimeError as e:
        return dict(row, unsupported=True, reason=str(e).splitlines()[0][:200])
    for _ in range(max(0, a.warmup - 1)):
        issue(s, send, recv)
    dist.barrier()
    # --timed-bytes: small messages run more calls, from the swept size every rank shares.
    swept = s.count * 4
    iters = max(a.iters, -(-a.timed_bytes // swept)) if a.timed_bytes > 0 else a.iters
    start = time.perf_counter()
    for _ in range(iters):
        issue(s, send, recv)
    latency = torch.tensor([(time.perf_counter() - start) * 1e6 / iters], dtype=torch.float64)
    dist.all_reduce(latency, op=dist.ReduceOp.MAX)
    send.copy_(source)
    issue(s, send, recv)
    wrong = torch.tensor([float(((send if s.in_place else recv) != expected(s)).sum())], dtype=torch.float64)
    dist.all_reduce(wrong)
    latency_us = latency.item()
    algbw = message_bytes / (latency_us * 1e-6) / 1e9
    return dict(row, iters=iters, latency_us=latency_us, algbw_gbps=algbw, busbw_gbps=algbw * OPS[s.op][4](s.world),
                wrong_values=wrong.item())


def plan(a, rank, world):
    chosen = list(OPS) if a.ops == "all" else [op for op in OPS if op in a.ops.split(",")]
    for op in chosen:
        in_place, out_of_place, has_splits, per_rank_blocks, _ = OPS[op]
        placements = []
        if a.placement != "out_of_place" and in_place:
            placements.append(True)
        if (a.placement != "in_place" or not in_place) and out_of_place:
            placements.append(False)
        placements = placements or [in_place]
        splits = (["equal", "uneven"] if a.split == "both" else [a.split]) if has_splits else [""]
        for size in message_sizes(a):
            count = max(1, size // 4 // (world if per_rank_blocks else 1))
            for placement in placements:
                for split in splits:
                    yield Shape(op, rank, world, count, placement, split)


def row_line(row):
    head = f"{row['operation']:<14} {'in_place' if row['in_place'] else 'out_of_place':<12} {row['split']:<6} " \
           f"{row['bytes']:>12} B"
    if row.get("unsupported"):
        return f"{head}  unsupported: {row['reason']}"
    return f"{head}  latency {row['latency_us']:12.2f} us  algbw {row['algbw_gbps']:8.3f} GB/s  " \
           f"busbw {row['busbw_gbps']:8.3f} GB/s  wrong {row['wrong_values']:.0f}"


def main():
    a = parse_args()
    keep_freed_memory_for_reuse()  # as mtengine does; recorded in the result's environment
    flush_denormal = torch.set_flush_denormal(True)
    threads = default_threads()
    torch.set_num_threads(threads)
    rank = int(os.environ.get("OMPI_COMM_WORLD_RANK", os.environ.get("RANK", "0")))
    world = int(os.environ.get("OMPI_COMM_WORLD_SIZE", os.environ.get("WORLD_SIZE", "1")))
    job = os.environ.get("PMIX_NAMESPACE", os.environ.get("OMPI_MCA_ess_base_jobid", "0"))
    meeting = os.path.join(os.path.dirname(os.path.abspath(a.output or "gloo_peer")), f".gloo_rendezvous.{job}")
    dist.init_process_group("gloo", init_method=f"file://{meeting}", rank=rank, world_size=world)
    host_window = HostWindow()

    rows = []
    for shape in plan(a, rank, world):
        row = measure(a, shape)
        rows.append(row)
        if rank == 0:
            print(row_line(row), flush=True)
    total_wrong = sum(r.get("wrong_values", 0) for r in rows)
    hosts = gather_hostnames(rank, world)
    rank_cpu_s, rank_host_window = host_window.gather(rank, world)
    if rank == 0 and a.output:
        result = {"schema_version": 1, "benchmark": "comm", "implementation": "gloo",
                  "status": "error" if total_wrong else "ok", "backend": "gloo", "world_size": world,
                  "warmup": a.warmup, "iters": a.iters, "timed_bytes": a.timed_bytes, "rows": rows, "hosts": hosts,
                  "rank_cpu_s": rank_cpu_s, "rank_host_window": rank_host_window,
                  "environment": environment(threads, flush_denormal)}
        if total_wrong:
            result["error"] = {"reason": f"{total_wrong:.0f} wrong values in collective outputs", "rank": None,
                               "step": None}
        tmp = f"{a.output}.tmp.{os.getpid()}"
        with open(tmp, "w") as f:
            json.dump(result, f, indent=2)
        os.replace(tmp, a.output)
    # Leave together, and without Gloo's teardown: a rank can spin in destroy_process_group (or at
    # interpreter exit) once its peer has gone, and the job never ends.
    dist.barrier()
    if rank == 0:
        os.remove(meeting)  # the ranks met long ago; Gloo's own barrier needs no store
    sys.stdout.flush()
    os._exit(1 if total_wrong else 0)


if __name__ == "__main__":
    main()
