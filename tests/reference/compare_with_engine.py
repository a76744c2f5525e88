#!/usr/bin/env python3
"""Checks the engine's GPT against the PyTorch reference (nanogpt_reference.py) on the same weights
and the same tokens, both written by mtengine as safetensors:

  gradients  the engine's first-step loss and every parameter's gradient (train --gradients-out),
             from the weights it started with (train --weights-out) and the tokens every rank
             trained on (mtengine tokens)
  training   the engine's per-step losses over a short run (result JSON) against the reference
             trained from the same weights with the same AdamW settings on the same tokens
  resume     from a checkpoint exported with its AdamW moments: the loss of the step it was saved
             before, then one AdamW step from the exported moments and the next step's loss
  init       writes the reference's own initialisation, for train --init-from

Bounds are relative, per tensor: |engine - reference|_2 / |reference|_2 (see docs/interop.md for
why each bound is what it is). Exit 0 when every comparison holds, 1 otherwise, with a table.
"""
import argparse
import json
import sys

import torch
from safetensors import safe_open
from safetensors.torch import load_file, save_file

from nanogpt_reference import Gpt, GptConfig

# fp32: the two implementations differ only in summation order (GEMM blocking, fused kernels), a
# few ulps per operation; through a 2-layer model that stays well below 1e-5 of a tensor's norm.
FP32_GRADIENT_BOUND = 1e-5
FP32_LOSS_BOUND = 1e-6
# bf16: 8 significant bits; an operand rounding the other way changes a product by up to 2^-8, and
# where the two sides round differently gradients differ by a few times that.
BF16_GRADIENT_BOUND = 3e-2
BF16_LOSS_BOUND = 5e-3


def metadata_of(path):
    with safe_open(path, "pt") as f:
        return f.metadata() or {}


def load_reference(weights):
    model = Gpt(GptConfig.from_metadata(metadata_of(weights)))
    state = {k: v for k, v in load_file(weights).items() if not k.startswith("optimizer.")}
    missing, unexpected = model.load_state_dict(state, strict=False)
    # The LM head is the token embedding (tied): files carry it once.
    if set(missing) - {"lm_head.weight"} or unexpected:
        sys.exit(f"{weights}: missing {missing}, unexpected {unexpected}")
    return model


def batch_of(token_files):
    """Every rank's tokens of one step, stacked: equal-sized rank batches, so the mean loss over
    them is the mean of the ranks' losses, as the engine averages them."""
    parts = [load_file(f) for f in token_files]
    return torch.cat([p["inputs"] for p in parts]), torch.cat([p["targets"] for p in parts])


def loss_of(model, inputs, targets, precision):
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=precision == "bf16"):
        return model(inputs, targets).float()


def relative(a, b):
    return ((a.double() - b.double()).norm() / b.double().norm().clamp_min(1e-30)).item()


def report(rows, bound, what):
    worst = max(rows, key=lambda r: r[1])
    print(f"{what}: {len(rows)} compared, worst {worst[0]} at {worst[1]:.3g} (bound {bound:g})")
    bad = [r for r in rows if not r[1] <= bound]
    for name, err in bad:
        print(f"  FAIL {name}: relative difference {err:.3g} > {bound:g}")
    return not bad


def gradients(args):
    model = load_reference(args.weights)
    inputs, targets = batch_of(args.tokens)
    loss = loss_of(model, inputs, targets, args.precision)
    loss.backward()
    engine = load_file(args.gradients)
    engine_loss = float(metadata_of(args.gradients)["loss"])
    grad_bound = FP32_GRADIENT_BOUND if args.precision == "fp32" else BF16_GRADIENT_BOUND
    loss_bound = FP32_LOSS_BOUND if args.precision == "fp32" else BF16_LOSS_BOUND
    params = dict(model.named_parameters())
    rows = []
    for name, grad in engine.items():
        if name not in params:
            sys.exit(f"{args.gradients}: '{name}' is not a parameter of the reference")
        rows.append((name, relative(grad, params[name].grad)))
    if len(rows) != len(params):
        sys.exit(f"{args.gradients}: {len(rows)} gradients for {len(params)} parameters")
    loss_err = abs(engine_loss - loss.item()) / abs(loss.item())
    print(f"loss: engine {engine_loss:.9g}, reference {loss.item():.9g}, relative {loss_err:.3g} (bound {loss_bound:g})")
    ok = report(rows, grad_bound, "gradients") and loss_err <= loss_bound
    return ok


def training(args):
    model = load_reference(args.weights)
    result = json.load(open(args.result))
    engine_losses = result["per_step"]["loss"]
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.learning_rate, betas=(0.9, 0.999), eps=1e-8,
                                  weight_decay=0.01)
    rows = []
    for step, engine_loss in enumerate(engine_losses):
        files = [f"{args.tokens_dir}/step{step}_rank{r}.safetensors" for r in range(args.ranks)]
        inputs, targets = batch_of(files)
        optimizer.zero_grad()
        loss = loss_of(model, inputs, targets, "fp32")
        loss.backward()
        optimizer.step()
        err = abs(engine_loss - loss.item()) / abs(loss.item())
        print(f"step {step}: engine {engine_loss:.9g}, reference {loss.item():.9g}, relative {err:.3g}")
        rows.append((f"step {step}", err))
    return report(rows, args.bound, "training losses")


def resume(args):
    """The exported step's weights give the engine's loss for that step; one AdamW step from the
    exported moments (bias correction from the exported step count) gives the next one."""
    model = load_reference(args.weights)
    saved = load_file(args.weights)
    steps = float(metadata_of(args.weights)["optimizer_steps"])
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.learning_rate, weight_decay=0.01)
    for name, p in model.named_parameters():
        if name == "lm_head.weight":
            continue  # the token embedding's, already set
        optimizer.state[p] = {"step": torch.tensor(steps), "exp_avg": saved["optimizer.exp_avg." + name].clone(),
                              "exp_avg_sq": saved["optimizer.exp_avg_sq." + name].clone()}
    expected = json.load(open(args.result))["per_step"]["loss"]
    step = int(metadata_of(args.weights)["step"])
    rows = []
    for s in (step, step + 1):
        files = [f"{args.tokens_dir}/step{s}_rank{r}.safetensors" for r in range(args.ranks)]
        inputs, targets = batch_of(files)
        optimizer.zero_grad()
        value = loss_of(model, inputs, targets, "fp32")
        value.backward()
        optimizer.step()
        err = abs(expected[s] - value.item()) / abs(value.item())
        print(f"step {s}: engine {expected[s]:.9g}, reference {value.item():.9g}, relative {err:.3g}")
        rows.append((f"step {s}", err))
    return report(rows, args.bound, "resumed losses")


def init(args):
    torch.manual_seed(args.seed)
    config = GptConfig(args.vocab_size, args.seq_length, args.n_layers, args.n_heads, args.d_model)
    state = {k: v for k, v in Gpt(config).state_dict().items() if k != "lm_head.weight"}
    save_file(state, args.output, metadata={"format": "pt", "config": json.dumps(vars(config))})
    return True


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    g = sub.add_parser("gradients")
    g.add_argument("--weights", required=True)
    g.add_argument("--gradients", required=True)
    g.add_argument("--tokens", nargs="+", required=True, help="one file per rank, rank order")
    g.add_argument("--precision", choices=["fp32", "bf16"], default="fp32")
    t = sub.add_parser("training")
    t.add_argument("--weights", required=True)
    t.add_argument("--result", required=True)
    t.add_argument("--tokens-dir", required=True, help="stepS_rankR.safetensors for every step and rank")
    t.add_argument("--ranks", type=int, default=1)
    t.add_argument("--learning-rate", type=float, required=True)
    t.add_argument("--bound", type=float, required=True)
    r = sub.add_parser("resume")
    r.add_argument("--weights", required=True, help="exported with --with-optimizer")
    r.add_argument("--result", required=True, help="the engine's result JSON of the run that saved it")
    r.add_argument("--tokens-dir", required=True)
    r.add_argument("--ranks", type=int, required=True)
    r.add_argument("--learning-rate", type=float, required=True)
    r.add_argument("--bound", type=float, required=True)
    i = sub.add_parser("init")
    for flag in ("--vocab-size", "--d-model", "--n-heads", "--n-layers", "--seq-length", "--seed"):
        i.add_argument(flag, type=int, required=True)
    i.add_argument("--output", required=True)
    args = parser.parse_args()
    torch.set_num_threads(1)
    ok = {"gradients": gradients, "training": training, "resume": resume, "init": init}[args.command](args)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
