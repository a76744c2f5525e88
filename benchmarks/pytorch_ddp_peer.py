#!/usr/bin/env python3
"""PyTorch DDP peer for mtengine's DDP: the same GPT, synthetic batch sizes, rank and thread
counts, timed by the same rules (warmup excluded; a step takes as long as its slowest rank, so
step time is the MAX over ranks of each rank's mean; tokens/s = batch * seq * grad_accum * world
/ step time). Written as a performance-minded PyTorch 2.x user would: DistributedDataParallel with
gradient_as_bucket_view, scaled_dot_product_attention(is_causal=True), AdamW(fused=True),
flush-to-zero, freed memory kept for reuse as mtengine keeps it (peer_environment.py),
optionally torch.compile (inductor's default mode, or max-autotune, which times candidate GEMM
kernels for every shape while compiling) and bf16 autocast. Runs on the PyTorch wheel the setup
installs (.venv/bin/python), Gloo backend, launched by mpirun (rendezvous from Open MPI's
environment):

  mpirun -np 2 .venv/bin/python benchmarks/pytorch_ddp_peer.py --output peer.json [--compile [--compile-mode max-autotune]]

Both sides compute one function on one input: with --init-from-engine the peer starts from the
weights mtengine starts from (rank 0 asks mtengine for them, `train --weights-out`, before any
timing), and it trains on mtengine's synthetic batches (the same seeds, the same generator); the
engine_reference test checks that its first loss is the engine's.

Writes a result JSON (a subset of schemas/result.schema.json) that mtrun can ingest.
"""
import argparse
import contextlib
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F

from peer_environment import HostWindow, default_threads, environment, gather_hostnames, keep_freed_memory_for_reuse


class Attention(nn.Module):
    def __init__(self, d, heads, dropout):
        super().__init__()
        self.heads, self.dropout = heads, dropout
        self.qkv = nn.Linear(d, 3 * d)
        self.out = nn.Linear(d, d)

    def forward(self, x):
        b, s, d = x.shape
        q, k, v = self.qkv(x).view(b, s, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True,
                                           dropout_p=self.dropout if self.training else 0.0)
        return F.dropout(self.out(y.transpose(1, 2).reshape(b, s, d)), self.dropout, self.training)


class Block(nn.Module):
    def __init__(self, d, heads, dropout):
        super().__init__()
        self.dropout = dropout
        self.norm_attention = nn.LayerNorm(d)
        self.attention = Attention(d, heads, dropout)
        self.norm_mlp = nn.LayerNorm(d)
        self.fc_in = nn.Linear(d, 4 * d)
        self.fc_out = nn.Linear(4 * d, d)

    def forward(self, x):
        x = x + self.attention(self.norm_attention(x))
        return x + F.dropout(self.fc_out(F.gelu(self.fc_in(self.norm_mlp(x)))), self.dropout, self.training)


class Gpt(nn.Module):
    """Mirrors engine/src/training/model/gpt.cpp: pre-norm blocks, learned positions, exact GELU, tied LM
    head, GPT-2 initialisation."""

    def __init__(self, vocab, d, heads, layers, seq, dropout):
        super().__init__()
        self.vocab, self.dropout = vocab, dropout
        self.token_embedding = nn.Embedding(vocab, d)
        self.position_embedding = nn.Embedding(seq, d)
        self.blocks = nn.ModuleList(Block(d, heads, dropout) for _ in range(layers))
        self.final_norm = nn.LayerNorm(d)
        self.register_buffer("positions", torch.arange(seq), persistent=False)
        for m in self.modules():
            if isinstance(m, (nn.Linear, nn.Embedding)):
                nn.init.normal_(m.weight, 0.0, 0.02)
            if isinstance(m, nn.Linear):
                nn.init.zeros_(m.bias)

    def forward(self, inputs, targets):
        x = self.token_embedding(inputs) + self.position_embedding(self.positions[:inputs.size(1)])
        x = F.dropout(x, self.dropout, self.training)
        for block in self.blocks:
            x = block(x)
        logits = F.linear(self.final_norm(x), self.token_embedding.weight)
        return F.cross_entropy(logits.view(-1, self.vocab).float(), targets.reshape(-1))


# nanoGPT's names (safetensors files of mtengine export / --weights-out) -> this module's names.
RENAMES = ((r"^transformer\.wte\.", "token_embedding."), (r"^transformer\.wpe\.", "position_embedding."),
           (r"^transformer\.ln_f\.", "final_norm."), (r"^transformer\.h\.(\d+)\.ln_1\.", r"blocks.\1.norm_attention."),
           (r"^transformer\.h\.(\d+)\.attn\.c_attn\.", r"blocks.\1.attention.qkv."),
           (r"^transformer\.h\.(\d+)\.attn\.c_proj\.", r"blocks.\1.attention.out."),
           (r"^transformer\.h\.(\d+)\.ln_2\.", r"blocks.\1.norm_mlp."),
           (r"^transformer\.h\.(\d+)\.mlp\.c_fc\.", r"blocks.\1.fc_in."),
           (r"^transformer\.h\.(\d+)\.mlp\.c_proj\.", r"blocks.\1.fc_out."))


def load_weights(model, path):
    from safetensors.torch import load_file
    state = {}
    for name, tensor in load_file(path).items():
        renamed = name
        for pattern, replacement in RENAMES:
            renamed = re.sub(pattern, replacement, renamed)
        state[renamed] = tensor
    model.load_state_dict(state, strict=True)  # every parameter, nothing else
    return {"path": os.path.abspath(path), "sha256": hashlib.sha256(open(path, "rb").read()).hexdigest()}


def engine_initial_weights(a, mtengine, directory):
    """The weights mtengine starts from with this model and seed: one untimed 1-step run of it,
    outside this MPI job (Open MPI's variables removed, so it starts as a job of its own)."""
    path = os.path.join(directory, "engine_initial.safetensors")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMPI_", "PMIX_", "PRTE_"))}
    subprocess.run([mtengine, "train", "--vocab-size", str(a.vocab_size), "--d-model", str(a.d_model),
                    "--n-heads", str(a.n_heads), "--n-layers", str(a.n_layers), "--seq-length", str(a.seq_length),
                    "--dropout", str(a.dropout), "--batch-size", "1", "--steps", "1", "--warmup-steps", "0",
                    "--seed", str(a.seed), "--threads", "1", "--weights-out", path],
                   env=env, check=True, stdout=subprocess.DEVNULL)
    return path


def synthetic_batch(seed, micro_batch, rank, batch_size, seq_length, vocab_size):
    """mtengine's batch for a global micro-batch index on a rank (training/data/synthetic.cpp)."""
    generator = torch.Generator().manual_seed(seed + micro_batch * 1000003 + rank * 97003)
    return torch.randint(0, vocab_size, (batch_size, seq_length + 1), generator=generator)


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--vocab-size", type=int, default=16384)
    p.add_argument("--d-model", type=int, default=512)
    p.add_argument("--n-heads", type=int, default=8)
    p.add_argument("--n-layers", type=int, default=8)
    p.add_argument("--seq-length", type=int, default=256)
    p.add_argument("--dropout", type=float, default=0.0)
    p.add_argument("--batch-size", type=int, default=2)
    p.add_argument("--grad-accum-steps", type=int, default=1)
    p.add_argument("--gradient-sync-mode", choices=["every", "last", "auto"], default="auto")
    p.add_argument("--precision", choices=["fp32", "bf16"], default="fp32")
    p.add_argument("--compile", action="store_true", help="torch.compile the DDP model (inductor)")
    p.add_argument("--compile-mode", choices=["default", "max-autotune"], default="default",
                   help="torch.compile's mode (with --compile)")
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--warmup-steps", type=int, default=5)
    p.add_argument("--learning-rate", type=float, default=3e-4)
    p.add_argument("--bucket-cap-mb", type=float, default=25.0)
    p.add_argument("--seed", type=int, default=1337)
    p.add_argument("--threads", type=int, default=0)
    p.add_argument("--port", type=int, default=29517)
    p.add_argument("--init-from", default="", help="start from these weights (safetensors, nanoGPT names)")
    p.add_argument("--init-from-engine", default="", metavar="MTENGINE",
                   help="start from the weights this mtengine starts from with the same model and seed")
    p.add_argument("--output", default="")
    return p.parse_args()


def main():
    a = parse_args()
    keep_freed_memory_for_reuse()  # as mtengine does; recorded in the result's environment
    # Before anything starts a thread: the intra-op pool inherits the floating-point mode.
    flush_denormal = torch.set_flush_denormal(True)
    threads = a.threads or default_threads()
    torch.set_num_threads(threads)

    rank = int(os.environ.get("OMPI_COMM_WORLD_RANK", os.environ.get("RANK", "0")))
    world = int(os.environ.get("OMPI_COMM_WORLD_SIZE", os.environ.get("WORLD_SIZE", "1")))
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", str(a.port))
    dist.init_process_group("gloo", init_method="env://", rank=rank, world_size=world)
    host_window = HostWindow()

    torch.manual_seed(a.seed)
    model = Gpt(a.vocab_size, a.d_model, a.n_heads, a.n_layers, a.seq_length, a.dropout)
    # Rank 0 loads the starting weights; DistributedDataParallel's construction broadcasts them.
    initial_weights = None
    if rank == 0 and (a.init_from or a.init_from_engine):
        with tempfile.TemporaryDirectory() as scratch:
            path = engine_initial_weights(a, a.init_from_engine, scratch) if a.init_from_engine else a.init_from
            initial_weights = load_weights(model, path)
        if a.init_from_engine:
            initial_weights.update(path=None, source="mtengine train --weights-out, same model and seed")
    parameters = sum(t.numel() for t in model.parameters())
    ddp = nn.parallel.DistributedDataParallel(model, bucket_cap_mb=a.bucket_cap_mb,
                                              gradient_as_bucket_view=True)
    step_model = torch.compile(ddp, mode=a.compile_mode) if a.compile else ddp
    optimizer = torch.optim.AdamW(ddp.parameters(), lr=a.learning_rate, fused=True)
    mode = "last" if a.gradient_sync_mode == "auto" else a.gradient_sync_mode
    autocast = (lambda: torch.autocast("cpu", dtype=torch.bfloat16)) if a.precision == "bf16" \
        else contextlib.nullcontext

    step_ms, losses = [], []
    for step in range(a.warmup_steps + a.steps):
        dist.barrier()  # a step starts on all ranks together
        start = time.perf_counter()
        total = 0.0
        for micro in range(a.grad_accum_steps):
            tokens = synthetic_batch(a.seed, step * a.grad_accum_steps + micro, rank, a.batch_size, a.seq_length,
                                     a.vocab_size)
            sync = mode == "every" or micro + 1 == a.grad_accum_steps
            with (contextlib.nullcontext() if sync else ddp.no_sync()), autocast():
                loss = step_model(tokens[:, :-1], tokens[:, 1:])
            (loss / a.grad_accum_steps).backward()
            total += loss.item() / a.grad_accum_steps
        optimizer.step()
        optimizer.zero_grad(set_to_none=False)  # gradients stay views of the buckets
        step_ms.append((time.perf_counter() - start) * 1000.0)
        losses.append(total)

    measured = step_ms[a.warmup_steps:]
    mean = torch.tensor([sum(measured) / len(measured)], dtype=torch.float64)
    dist.all_reduce(mean, op=dist.ReduceOp.MAX)
    step_time = mean.item()
    loss = torch.tensor([losses[-1]], dtype=torch.float64)
    dist.all_reduce(loss)
    all_losses = torch.tensor(losses, dtype=torch.float64)
    dist.all_reduce(all_losses)  # summed over ranks: the mean over ranks, as mtengine reports it
    all_losses = (all_losses / world).tolist()
    tokens_per_sec = a.batch_size * a.seq_length * a.grad_accum_steps * world / (step_time / 1000.0)
    series = torch.zeros(world, len(step_ms), dtype=torch.float64)
    series[rank] = torch.tensor(step_ms, dtype=torch.float64)
    dist.all_reduce(series)  # every rank's per-step times, in rank order
    hosts = gather_hostnames(rank, world)
    rank_cpu_s, rank_host_window = host_window.gather(rank, world)
    stack = environment(threads, flush_denormal) if rank == 0 else None
    if rank == 0:
        implementation = "pytorch_ddp_eager"
        if a.compile:
            implementation = "pytorch_ddp_compiled" + ("_max_autotune" if a.compile_mode == "max-autotune" else "")
        result = {
            "schema_version": 1, "benchmark": "train", "status": "ok", "implementation": implementation,
            "strategy": "ddp", "backend": "gloo", "world_size": world, "precision": a.precision,
            "parameters": parameters, "threads_per_rank": threads, "compiled": a.compile,
            "compile_mode": a.compile_mode if a.compile else None,
            "model_config": {"vocab_size": a.vocab_size, "d_model": a.d_model, "n_heads": a.n_heads,
                             "n_layers": a.n_layers, "seq_length": a.seq_length, "dropout": a.dropout},
            "batch_size_per_rank": a.batch_size, "gradient_accumulation_steps": a.grad_accum_steps,
            "gradient_sync_mode": a.gradient_sync_mode, "resolved_gradient_sync_mode": mode,
            "steps": a.steps, "warmup_steps": a.warmup_steps,
            "tokens_per_sec": tokens_per_sec, "step_time_ms": step_time, "loss": loss.item() / world,
            "per_step": {"step_time_ms": series.tolist(), "loss": all_losses},
            "initial_weights": initial_weights,
            "tokens": "mtengine's synthetic batches (same seeds and generator)",
            "hosts": hosts, "rank_cpu_s": rank_cpu_s, "rank_host_window": rank_host_window, "environment": stack,
        }
        print(f"{implementation} x{world} {a.precision} params={parameters} threads={threads} "
              f"tokens/s={tokens_per_sec:.1f} step={step_time:.2f} ms loss={result['loss']:.4f}")
        if a.output:
            tmp = f"{a.output}.tmp.{os.getpid()}"
            with open(tmp, "w") as f:
                json.dump(result, f, indent=2)
            os.replace(tmp, a.output)
    # Leave together, and without Gloo's teardown: a rank can spin in destroy_process_group (or
    # at interpreter exit) once its peer has gone, and the job never ends.
    dist.barrier()
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
