#!/usr/bin/python3
"""PyTorch DDP peer for mtengine's DDP: the same GPT, synthetic batch sizes, rank and thread
counts, timed by the same rules (warmup excluded; a step takes as long as its slowest rank, so
step time is the MAX over ranks of each rank's mean; tokens/s = batch * seq * grad_accum * world
/ step time). Uses Debian's python3-torch (run it with /usr/bin/python3), the Gloo backend and
torch.nn.parallel.DistributedDataParallel, launched by mpirun (rendezvous from Open MPI's
environment):

  mpirun -np 2 /usr/bin/python3 benchmarks/pytorch_ddp_peer.py --output peer.json [model flags]

Writes a result JSON (schemas/result.schema.json subset) that mtrun can ingest.
"""
import argparse
import json
import math
import os
import platform
import socket
import subprocess
import sys
import time

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F


class Attention(nn.Module):
    def __init__(self, d, heads, seq, dropout):
        super().__init__()
        self.heads, self.dropout = heads, dropout
        self.qkv = nn.Linear(d, 3 * d)
        self.out = nn.Linear(d, d)
        # A plain attribute, not a buffer: Gloo cannot broadcast bool tensors (DDP syncs buffers).
        self.causal_mask = torch.ones(seq, seq, dtype=torch.bool).triu(1)

    def forward(self, x):
        b, s, d = x.shape
        hd = d // self.heads
        q, k, v = self.qkv(x).view(b, s, 3, self.heads, hd).permute(2, 0, 3, 1, 4)
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(hd)
        scores = scores.masked_fill(self.causal_mask[:s, :s], float("-inf"))
        weights = F.dropout(torch.softmax(scores, -1), self.dropout, self.training)
        y = torch.matmul(weights, v).transpose(1, 2).reshape(b, s, d)
        return F.dropout(self.out(y), self.dropout, self.training)


class Block(nn.Module):
    def __init__(self, d, heads, seq, dropout):
        super().__init__()
        self.dropout = dropout
        self.norm_attention = nn.LayerNorm(d)
        self.attention = Attention(d, heads, seq, dropout)
        self.norm_mlp = nn.LayerNorm(d)
        self.fc_in = nn.Linear(d, 4 * d)
        self.fc_out = nn.Linear(4 * d, d)

    def forward(self, x):
        x = x + self.attention(self.norm_attention(x))
        return x + F.dropout(self.fc_out(F.gelu(self.fc_in(self.norm_mlp(x)))), self.dropout, self.training)


class Gpt(nn.Module):
    """Mirrors engine/src/model/gpt.cpp: pre-norm blocks, learned positions, tied LM head."""

    def __init__(self, vocab, d, heads, layers, seq, dropout):
        super().__init__()
        self.vocab, self.dropout = vocab, dropout
        self.token_embedding = nn.Embedding(vocab, d)
        self.position_embedding = nn.Embedding(seq, d)
        self.blocks = nn.ModuleList(Block(d, heads, seq, dropout) for _ in range(layers))
        self.final_norm = nn.LayerNorm(d)
        for m in self.modules():
            if isinstance(m, (nn.Linear, nn.Embedding)):
                nn.init.normal_(m.weight, 0.0, 0.02)
            if isinstance(m, nn.Linear):
                nn.init.zeros_(m.bias)

    def forward(self, inputs, targets):
        positions = torch.arange(inputs.size(1))
        x = F.dropout(self.token_embedding(inputs) + self.position_embedding(positions), self.dropout, self.training)
        for block in self.blocks:
            x = block(x)
        logits = torch.matmul(self.final_norm(x), self.token_embedding.weight.t())
        return F.cross_entropy(logits.view(-1, self.vocab), targets.reshape(-1))


def first_line(command):
    """First line of a command's output, or "" when it cannot run."""
    try:
        out = subprocess.run(command, capture_output=True, text=True, timeout=30, check=False).stdout
        return out.splitlines()[0].strip() if out else ""
    except OSError:
        return ""


def file_field(path, key, separator):
    """Value of the first `key<separator>value` line of a text file, or ""."""
    try:
        with open(path) as f:
            for line in f:
                name, _, value = line.partition(separator)
                if name.strip() == key:
                    return value.strip().strip('"')
    except OSError:
        pass
    return ""


def environment():
    """The software stack, as mtengine records its own (schemas/result.schema.json): the "build"
    of this peer is this script at the checkout's commit, run on Debian's PyTorch."""
    here = os.path.dirname(os.path.abspath(__file__))
    config = torch.__config__.show()
    compiler = next((line.strip(" -") for line in config.splitlines() if "GCC" in line), "")
    return {
        "libtorch": torch.__version__,
        "python_torch": torch.__version__,
        "mpi": first_line(["ompi_info", "--version"]),  # never mpirun: nested inside a job it hangs
        "compiler": compiler or platform.python_compiler(),
        "build_revision": first_line(["git", "-C", here, "rev-parse", "HEAD"]),
        "build_tree_dirty": first_line(["git", "-C", here, "status", "--porcelain",
                                        "--untracked-files=no"]) != "",
        "os": file_field("/etc/os-release", "PRETTY_NAME", "="),
        "kernel": f"{platform.system()} {platform.release()}",
        "cpu_model": file_field("/proc/cpuinfo", "model name", ":"),
        "blas": config.split("BLAS_INFO=")[-1].split(",")[0],
    }


def gather_hostnames(rank, world):
    """Every rank's hostname, in rank order: each fills its own row, a sum all-reduce joins them.
    (all_gather, with or without objects, leaves Gloo in PyTorch 1.13 spinning in teardown here.)"""
    names = torch.zeros(world, 256, dtype=torch.int32)
    encoded = list(socket.gethostname().encode()[:256])
    names[rank, :len(encoded)] = torch.tensor(encoded, dtype=torch.int32)
    dist.all_reduce(names)
    return [bytes(row[row.nonzero().flatten()].tolist()).decode() for row in names]


def default_threads():
    if os.environ.get("OMP_NUM_THREADS", "").isdigit() and int(os.environ["OMP_NUM_THREADS"]) > 0:
        return int(os.environ["OMP_NUM_THREADS"])
    local = int(os.environ.get("OMPI_COMM_WORLD_LOCAL_SIZE", "1"))
    return max(1, (os.cpu_count() or 1) // local)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--vocab-size", type=int, default=16384)
    p.add_argument("--d-model", type=int, default=512)
    p.add_argument("--n-heads", type=int, default=8)
    p.add_argument("--n-layers", type=int, default=8)
    p.add_argument("--seq-length", type=int, default=256)
    p.add_argument("--batch-size", type=int, default=2)
    p.add_argument("--grad-accum-steps", type=int, default=1)
    p.add_argument("--gradient-sync-mode", choices=["every", "last", "auto"], default="auto")
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--warmup-steps", type=int, default=5)
    p.add_argument("--learning-rate", type=float, default=3e-4)
    p.add_argument("--bucket-cap-mb", type=float, default=25.0)
    p.add_argument("--seed", type=int, default=1337)
    p.add_argument("--threads", type=int, default=0)
    p.add_argument("--port", type=int, default=29517)
    p.add_argument("--output", default="")
    a = p.parse_args()

    rank = int(os.environ.get("OMPI_COMM_WORLD_RANK", os.environ.get("RANK", "0")))
    world = int(os.environ.get("OMPI_COMM_WORLD_SIZE", os.environ.get("WORLD_SIZE", "1")))
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", str(a.port))
    dist.init_process_group("gloo", init_method="env://", rank=rank, world_size=world)
    threads = a.threads or default_threads()
    torch.set_num_threads(threads)

    torch.manual_seed(a.seed)
    model = Gpt(a.vocab_size, a.d_model, a.n_heads, a.n_layers, a.seq_length, 0.0)
    parameters = sum(t.numel() for t in model.parameters())
    ddp = nn.parallel.DistributedDataParallel(model, bucket_cap_mb=a.bucket_cap_mb)
    optimizer = torch.optim.AdamW(ddp.parameters(), lr=a.learning_rate)
    mode = "last" if a.gradient_sync_mode == "auto" else a.gradient_sync_mode

    generator = torch.Generator().manual_seed(a.seed + 97003 * rank)
    step_ms, losses = [], []
    for step in range(a.warmup_steps + a.steps):
        dist.barrier()  # a step starts on all ranks together
        start = time.perf_counter()
        total = 0.0
        for micro in range(a.grad_accum_steps):
            tokens = torch.randint(0, a.vocab_size, (a.batch_size, a.seq_length + 1), generator=generator)
            sync = mode == "every" or micro + 1 == a.grad_accum_steps
            context = ddp.no_sync() if not sync else _null()
            with context:
                loss = ddp(tokens[:, :-1], tokens[:, 1:])
                (loss / a.grad_accum_steps).backward()
            total += loss.item() / a.grad_accum_steps
        optimizer.step()
        optimizer.zero_grad(set_to_none=False)
        step_ms.append((time.perf_counter() - start) * 1000.0)
        losses.append(total)

    measured = step_ms[a.warmup_steps:]
    mean = torch.tensor([sum(measured) / len(measured)], dtype=torch.float64)
    dist.all_reduce(mean, op=dist.ReduceOp.MAX)
    step_time = mean.item()
    loss = torch.tensor([losses[-1]], dtype=torch.float64)
    dist.all_reduce(loss)
    tokens_per_sec = a.batch_size * a.seq_length * a.grad_accum_steps * world / (step_time / 1000.0)
    hosts = gather_hostnames(rank, world)
    stack = environment() if rank == 0 else None  # before the last barrier: it runs subprocesses
    if rank == 0:
        result = {
            "schema_version": 1, "benchmark": "train", "status": "ok", "implementation": "pytorch_ddp_peer",
            "strategy": "ddp", "backend": "gloo", "world_size": world, "precision": "fp32",
            "parameters": parameters, "threads_per_rank": threads,
            "model_config": {"vocab_size": a.vocab_size, "d_model": a.d_model, "n_heads": a.n_heads,
                             "n_layers": a.n_layers, "seq_length": a.seq_length, "dropout": 0.0},
            "batch_size_per_rank": a.batch_size, "gradient_accumulation_steps": a.grad_accum_steps,
            "gradient_sync_mode": a.gradient_sync_mode, "resolved_gradient_sync_mode": mode,
            "steps": a.steps, "warmup_steps": a.warmup_steps,
            "tokens_per_sec": tokens_per_sec, "step_time_ms": step_time, "loss": loss.item() / world,
            "hosts": hosts, "environment": stack,
        }
        print(f"pytorch_ddp_peer x{world} params={parameters} threads={threads} "
              f"tokens/s={tokens_per_sec:.1f} step={step_time:.2f} ms loss={result['loss']:.4f}")
        if a.output:
            tmp = f"{a.output}.tmp.{os.getpid()}"
            with open(tmp, "w") as f:
                json.dump(result, f, indent=2)
            os.replace(tmp, a.output)
    # Leave together, and without Gloo's teardown: in PyTorch 1.13 a rank can spin in
    # destroy_process_group (or interpreter exit) once its peer has gone, and the job never ends.
    dist.barrier()
    sys.stdout.flush()
    os._exit(0)


class _null:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


if __name__ == "__main__":
    main()
