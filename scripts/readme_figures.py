#!/usr/bin/env python3
"""The README's performance figures, computed from the committed databases they come from.

Rewrites the block between `<!-- figures:begin -->` and `<!-- figures:end -->` in README.md from
reports/ddp_vs_pytorch.sqlite and every reports/ddp_vs_pytorch_*.sqlite (the same experiment run on
other CPUs), one table each: its latest campaign, that campaign's source revision and the CPU its
trials ran on, mtengine's tokens/s (mean ± sample std over the repeats) and its ratio to PyTorch
eager, compiled and compiled with max-autotune per model, precision and rank count (and, for bf16, against
the fastest of PyTorch's fp32 and bf16 when its bf16 is the slower); then the same models at the same rank
counts in the other committed databases' latest campaigns, against the table from their CPU. Attempts run
on a disturbed machine are left out, as the report leaves them out.

  scripts/readme_figures.py            rewrite the block
  scripts/readme_figures.py --check    exit 1 when the block differs from what the databases give
"""
import json
import os
import sqlite3
import statistics
import sys
from pathlib import Path

ROOT = Path(os.environ.get("MT_SOURCE_DIR", Path(__file__).resolve().parents[1]))
DATABASE = "reports/ddp_vs_pytorch.sqlite"  # the first table; ddp_vs_pytorch_*.sqlite follow
BEGIN, END = "<!-- figures:begin -->", "<!-- figures:end -->"
ENGINE, EAGER, COMPILED, AUTOTUNED = "mtengine", "pytorch_eager", "pytorch_compiled", "pytorch_max_autotune"


PEER_NAMES = {EAGER: "eager", COMPILED: "compiled", AUTOTUNED: "max-autotune"}


def ratio_text(r):
    return f"{r:.1f}×" if r >= 10 else f"{r:.2f}×"


def latest_campaign(db):
    return db.execute(
        "SELECT id, source_revision FROM campaigns ORDER BY created_at DESC, rowid DESC LIMIT 1").fetchone()


def successful_attempts(db, campaign, keep_disturbed=False):
    """(study, ranks, parameters, result, attempt id) of each trial's latest successful attempt,
    leaving out those that ran on a disturbed machine unless `keep_disturbed`."""
    disturbed = set()
    tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
    if "attempt_conditions" in tables:
        disturbed = {row[0] for row in db.execute(
            "SELECT attempt_id FROM attempt_conditions WHERE verdict = 'disturbed'")}
    rows = db.execute(
        """SELECT t.study, t.ranks, t.parameters, a.result_json, a.id FROM trials t
           JOIN attempts a ON a.trial_id = t.id AND a.state = 'succeeded'
           WHERE t.campaign_id = ? AND a.attempt = (SELECT max(b.attempt) FROM attempts b
                 WHERE b.trial_id = t.id AND b.state = 'succeeded')
           ORDER BY t.ordinal""", (campaign,)).fetchall()
    return [(study, ranks, json.loads(params), json.loads(result or "{}"), attempt)
            for study, ranks, params, result, attempt in rows if keep_disturbed or attempt not in disturbed]


def metric(db, attempt, name):
    row = db.execute("SELECT value FROM metrics WHERE attempt_id = ? AND name = ?", (attempt, name)).fetchone()
    return row[0] if row else None


def cpu_line(results):
    """The CPU the results ran on, as the tables are keyed: VMs name AMD's Zen 3, 4 and 5 alike "AMD
    EPYC", so the family and model number join the name where the engine recorded them."""
    env = next((r.get("environment", {}) for r in results if r.get("environment", {}).get("cpu_model")), {})
    family = (f"family {env['cpu_family']} model {env['cpu_model_number']}, "
              if "cpu_family" in env and "cpu_model_number" in env else "")
    return f"{env.get('cpu_model', 'unknown CPU')} ({family}{env.get('cpu_cores', '?')} cores, {env.get('cpu_isa', '?')})"


def gemm_rows(results):
    """The engine's per-shape GEMM choice (environment.gemm_backends), first seen row per shape."""
    rows = {}
    for r in results:
        for row in r.get("environment", {}).get("gemm_backends") or []:
            rows.setdefault(row.get("shape"), row)
    return rows


def gemm_text(results):
    """Which library ran the engine's dense GEMMs, from environment.gemm_backends: "MKL for 9 of 15
    shapes and oneDNN for 6 (…)"; plain "MKL" for results older than the per-shape choice."""
    names = {"mkl": "MKL", "onednn": "oneDNN"}
    counts = {shape: row.get("backend") for shape, row in gemm_rows(results).items()}
    tally = {}
    for backend in counts.values():
        tally[backend] = tally.get(backend, 0) + 1
    if not tally:
        return "MKL"
    if len(tally) == 1:
        return f"{names.get(next(iter(tally)), next(iter(tally)))} (its measured choice for every shape)"
    ranked = sorted(tally.items(), key=lambda kv: -kv[1])
    first, rest = ranked[0], ranked[1:]
    return (f"{names.get(first[0], first[0])} for {first[1]} of {len(counts)} shapes and " +
            ", ".join(f"{names.get(b, b)} for {n}" for b, n in rest) + " (its measured choice per shape)")


def model_text(params, parameter_count):
    size = f", {parameter_count / 1e6:.1f}M parameters" if parameter_count else ""
    return (f"d {params['d_model']}, {params['n_layers']} layers, seq {params['seq_length']}, "
            f"batch {params['batch_size']}{size}")


def model_key(params):
    """What makes two runs the same model on the same batch: its shape (vocabulary and heads too:
    a smaller vocabulary is another model) and the sequences of a step."""
    return tuple(params.get(name) for name in ("vocab_size", "d_model", "n_heads", "n_layers", "seq_length",
                                                "batch_size"))


def change(low, high, reference):
    """"-26 %" or "-28 % to -26 %": how far other figures lie from the reference (rounded to whole
    percents first, so that 0.3 % below reads "+0 %", not "-0 %")."""
    a, b = (f"{round(100 * (value / reference - 1)):+d} %" for value in (low, high))
    return a if a == b else f"{a} to {b}"


def comparison_databases():
    """reports/ddp_vs_pytorch.sqlite, then the same experiment's databases from other CPUs."""
    first = ROOT / DATABASE
    return [first] + sorted((ROOT / "reports").glob(first.stem + "_*.sqlite"))


def other_campaigns(models, tables):
    """Lines for the same model, precision (fp32) and rank count run by mtengine DDP in the other
    committed databases' latest campaigns, unprofiled, against the table from the same CPU (`tables`:
    CPU as cpu_line writes it -> {(model, ranks): tokens/s}) and naming their CPU where none is."""
    lines = []
    skip = {path.name for path in comparison_databases()}
    for path in sorted((ROOT / "reports").glob("*.sqlite")):
        if path.name in skip:
            continue
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        found = latest_campaign(db)
        if not found:
            continue
        campaign, revision = found
        groups = {}
        attempts = successful_attempts(db, campaign)
        their_cpu = cpu_line([r for _, _, _, r, _ in attempts])
        for study, ranks, params, result, attempt in attempts:
            if result.get("benchmark") != "train" or params.get("strategy") != "ddp" or params.get("profile") in (
                    True, "true") or params.get("precision", "fp32") != "fp32":
                continue
            model = model_key(params)
            if not any((model, ranks) in table for table in tables.values()):
                continue
            value = metric(db, attempt, "tokens_per_sec")
            if value is not None:
                other_axes = tuple(sorted((k, str(v)) for k, v in params.items() if k in ("gradient_sync_mode",
                                                                                          "bucket_cap_mb",
                                                                                          "gemm_backend")))
                groups.setdefault((model, ranks), {}).setdefault(other_axes, []).append(value)
        for (model, ranks), by_config in sorted(groups.items(), key=lambda kv: (kv[0][0], kv[0][1])):
            means = [statistics.mean(v) for v in by_config.values()]
            low, high = min(means), max(means)
            span = f"{low:.0f}" if round(low) == round(high) else f"{low:.0f}–{high:.0f}"
            lines.append(f"- `reports/{path.name}` (campaign `{campaign}`, revision `{revision[:12]}`): "
                         f"{models[model]}, {ranks} rank{'s' if ranks > 1 else ''}: {span} tokens/s over "
                         f"{len(means)} configuration{'s' if len(means) > 1 else ''}, " +
                         (f"{change(low, high, tables[their_cpu][(model, ranks)])} against the table from that CPU"
                          if (model, ranks) in tables.get(their_cpu, {}) else
                          f"on {their_cpu}: no table here comes from that CPU"))
    return lines


def mkl_slowdown(results):
    """How much longer the engine's dense GEMMs would take on MKL alone (PyTorch's library) than on the
    backends it chose, from the speeds both measured at start-up (environment.gemm_backends): each
    shape counted once, weighted by its FLOPs. 1 where every shape ran on MKL or nothing was measured."""
    on_mkl = on_chosen = 0.0
    for row in gemm_rows(results).values():
        flops = 2.0 * row.get("m", 0) * row.get("n", 0) * row.get("k", 0)
        mkl = row.get("mkl_gflops") or 0
        chosen = row.get("onednn_gflops") if row.get("backend") == "onednn" else mkl
        if flops <= 0 or mkl <= 0 or not chosen:
            return 1.0
        on_mkl += flops / mkl
        on_chosen += flops / chosen
    return on_mkl / on_chosen if on_chosen else 1.0


def lead_goal(cpu):
    """The engine's goal against PyTorch's best on this CPU: 1.5× on AVX-512 AMD CPUs, where PyTorch's
    MKL runs below the machine and oneDNN does not, 1.15× elsewhere."""
    return (1.5, "1.5× (the goal on AVX-512 AMD CPUs)") if "AMD" in cpu and "avx512f" in cpu else (1.15, "1.15×")


def vector_peak_text(results, gemm, step, peer, lead, goal):
    """The machine's own bound, where every launch measured its cores' clock: the same GEMM FLOPs at
    the cores' fp32 vector peak, and how near that peak the GEMMs would have to run for the goal with
    the rest of the engine's step as it is."""
    mfu = [r.get("mfu", {}) for r in results]
    if not mfu or any(m.get("vector_peak_clock") != "measured" or "gflops" not in m.get("dense_gemm", {})
                      for m in mfu):
        return ""
    mhz, peak, flops, speed = (statistics.mean(f(m) for m in mfu) for f in (
        lambda m: m["vector_peak_clock_mhz"], lambda m: m["vector_peak_gflops"],
        lambda m: m["dense_gemm"]["flops_per_step"], lambda m: m["dense_gemm"]["gflops"]))
    ideal = flops / peak / 1e6  # ms per step at the vector peak (flops per rank, peak of the rank's cores)
    rest = step - gemm
    text = (f" Nor is the library the last word: at the cores' fp32 vector peak ({peak:.0f} GFLOP/s at the "
            f"{mhz:.0f} MHz measured at launch; they run at {100 * speed / peak:.0f} % of it) the GEMMs would take "
            f"{ideal:.0f} ms, and with the rest of the step as it is the lead could not pass "
            f"{peer / (ideal + rest):.2f}×")
    if lead < goal[0]:
        target = goal[1].split(" ")[0]
        if peer / (ideal + rest) >= goal[0]:
            needed = peer / goal[0] - rest  # ms the GEMMs may take
            text += f"; {target} needs them at {100 * flops / needed / 1e6 / peak:.0f} % of that peak"
        else:
            text += f"; {target} needs a shorter rest of the step as well"
    return text + "."


def ceiling_text(key, gemm, step, best, values, results, goal=(1.15, "1.15×")):
    """What bounds the engine's lead: PyTorch's GEMMs take about the engine's time (scaled to MKL's
    speed where the engine chose another library), so the rest of PyTorch's step is its step less
    that, and no engine can beat PyTorch by more than PyTorch's step over the engine's GEMMs alone."""
    if not best or best[2] != key[1]:
        return []
    peer_steps = values((key[0], best[2], key[2]), best[1], "step_time_ms")
    if not peer_steps:
        return []
    peer = statistics.mean(peer_steps)
    lead = statistics.mean(values(key, ENGINE)) / best[0]
    slowdown = mkl_slowdown(results)
    peer_gemm = gemm * slowdown
    if slowdown > 1:  # exactly 1 where every shape ran on MKL
        premise = (f"If its GEMMs take the engine's {gemm:.0f} ms at MKL's speed on the same shapes ({peer_gemm:.0f} "
                   f"ms: MKL measured {slowdown:.2f}× slower than the engine's choice at start-up, each shape "
                   f"weighted by its FLOPs)")
    else:
        premise = f"If its GEMMs take the engine's {gemm:.0f} ms (the same library on the same shapes)"
    return ["", f"What bounds the rest of the gain there: PyTorch's fastest ({PEER_NAMES[best[1]]}) takes "
                f"{peer:.0f} ms a step. {premise}, the rest of its step is {peer - peer_gemm:.0f} ms against the "
                f"engine's {step - gemm:.0f} ms, and the engine's lead, {ratio_text(lead)} here, could not pass "
                f"{peer / gemm:.2f}× with nothing but its GEMMs left, at their present speed" +
                ("." if lead >= goal[0] else
                 f"; {goal[1]} would need the rest of the engine's step within {peer / goal[0] - gemm:.0f} ms."
                 if peer / goal[0] > gemm else
                 f"; {goal[1]} is out of reach at that speed, whatever the rest of the engine's step.") + vector_peak_text(results, gemm, step, peer, lead, goal)]


GEMM_OPERATORS = ("mt::dense_gemm", "aten::mm", "aten::addmm", "aten::addmm_")  # the dense layers' products (MKL: a weight gradient accumulates in place, addmm_; the attention runs its own)


def step_profile_text(path, model):
    """The operator profile of the engine's step for `model` at 1 rank, from the step_profile_cpu
    campaign run on the same CPU as `path` (reports/step_profile_cpu<suffix>.sqlite beside
    reports/ddp_vs_pytorch<suffix>.sqlite): LibTorch's profiler on one step of each profiled repeat,
    the dense GEMMs together and the largest other operators by self time."""
    profile_db = path.with_name("step_profile_cpu" + path.stem[len(Path(DATABASE).stem):] + ".sqlite")
    if not profile_db.exists():
        return []
    db = sqlite3.connect(f"file:{profile_db}?mode=ro", uri=True)
    campaign, revision = latest_campaign(db)

    def profiled(attempts):
        return [result for study, ranks, params, result, _ in attempts
                if study == "profiled" and ranks == 1 and params.get("precision") == "fp32" and
                model_key(params) == model]

    quiet = profiled(successful_attempts(db, campaign))
    if not quiet:
        ran = len(profiled(successful_attempts(db, campaign, keep_disturbed=True)))
        return ["", f"Its operator profile ({profile_db.stem}: campaign `{campaign}`) holds no profiled run of that "
                    f"model at 1 rank on a quiet machine: {ran} ran on a disturbed one "
                    f"([report](reports/{profile_db.stem}.md) says why)."] if ran else []
    self_ms, recorded, steps = {}, [], []
    for result in quiet:
        for rank in result.get("profile", {}).get("ranks", []):
            ops = rank.get("operators", {})
            if "top" not in ops:
                continue
            recorded.append(ops["recorded_ms"])
            steps.append(ops["step_ms"])
            for op in ops["top"]:
                self_ms.setdefault(op["name"], []).append(op["self_ms"])
    if not recorded:
        return []
    n = len(recorded)
    mean = {name: sum(v) / n for name, v in self_ms.items()}  # absent from a rank's top: counted as 0
    gemm = sum(mean.pop(name, 0.0) for name in GEMM_OPERATORS)
    others = sorted(mean.items(), key=lambda kv: -kv[1])[:8]
    return ["", f"Operator by operator ({profile_db.stem}: campaign `{campaign}`, source revision "
                f"`{revision[:12]}`, LibTorch's profiler on one step of each of {len(quiet)} profiled runs of that model "
                f"at 1 rank, [report](reports/{profile_db.stem}.md)): of {statistics.mean(recorded):.0f} ms in operators "
                f"(that step took {statistics.mean(steps):.0f} ms under the profiler), the dense GEMMs take "
                f"{gemm:.0f} ms and the largest of the rest, by self time: " +
                ", ".join(f"`{name}` {ms:.1f} ms" for name, ms in others) + "."]


def allocator_text(peer_results):
    """Whether PyTorch ran with the engine's freed-memory policy (its results record it since the peer
    took it up) or on glibc's defaults, which hand large freed blocks back to the kernel."""
    kept = [r.get("environment", {}).get("freed_memory_kept_bytes", 0) for r in peer_results]
    if kept and all(k > 0 for k in kept):
        return "PyTorch kept freed memory for reuse as the engine does (`freed_memory_kept_bytes`)."
    return ("PyTorch ran on glibc's default allocator settings, which hand large freed blocks back to the "
            "kernel, while the engine keeps them for reuse: a setting PyTorch's peer has taken up since.")


def comparison(path):
    """One database's table and notes: (lines, models, cpu, {(model, ranks): engine fp32 tokens/s})."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    campaign, revision = latest_campaign(db)
    attempts = successful_attempts(db, campaign)
    groups = {}  # (model key, precision, ranks) -> study -> [attempt ids]
    order = []
    models = {}
    for study, ranks, params, _, attempt in attempts:
        model = model_key(params)
        key = (model, params["precision"], ranks)
        if key not in groups:
            groups[key] = {}
            order.append(key)
        groups[key].setdefault(study, []).append(attempt)
        if study == ENGINE and model not in models:
            models[model] = model_text(params, metric(db, attempt, "parameters"))

    def values(key, study, name="tokens_per_sec"):
        found = [metric(db, a, name) for a in groups[key].get(study, [])]
        return [v for v in found if v is not None]

    def ratio(key, peer):
        engine, other = values(key, ENGINE), values(key, peer)
        if not engine or not other:
            return "-"
        return ratio_text(statistics.mean(engine) / statistics.mean(other))

    def best_peer(key):
        """PyTorch's fastest (mean tokens/s, study, precision) for this model and rank count: any of
        its studies, and for bf16 its fp32 too, since a user would take the faster precision."""
        model, precision, ranks = key
        precisions = [precision] + (["fp32"] if precision != "fp32" else [])
        found = [(statistics.mean(values(k, peer)), peer, k[1]) for k in ((model, p, ranks) for p in precisions)
                 if k in groups for peer in (EAGER, COMPILED, AUTOTUNED) if values(k, peer)]
        return max(found) if found else None

    order.sort(key=lambda k: (k[1] != "fp32", k[0], k[2]))
    lines = ["| model | precision | ranks | mtengine tokens/s | ÷ PyTorch eager | ÷ PyTorch compiled | "
             "÷ max-autotune | ÷ PyTorch's best |",
             "|---|---|--:|--:|--:|--:|--:|--:|"]
    slower_bf16 = []
    for key in order:
        tokens = values(key, ENGINE)
        if not tokens:
            continue
        spread = f" ± {statistics.stdev(tokens):.0f}" if len(tokens) > 1 else ""
        best = best_peer(key)
        best_text = "-"
        if best:
            best_text = f"{ratio_text(statistics.mean(tokens) / best[0])} ({PEER_NAMES[best[1]]}"
            best_text += f", {best[2]})" if best[2] != key[1] else ")"
            if best[2] != key[1]:
                slower_bf16.append(f"{models[key[0]]} at {key[2]} rank{'s' if key[2] > 1 else ''}")
        lines.append(f"| {models[key[0]]} | {key[1]} | {key[2]} | {statistics.mean(tokens):.0f}{spread} | "
                     f"{ratio(key, EAGER)} | {ratio(key, COMPILED)} | {ratio(key, AUTOTUNED)} | {best_text} |")
    n = sorted({len(v) for g in groups.values() for v in g.values()})
    torch = next((r.get("environment", {}).get("libtorch") for s, _, _, r, _ in attempts if s == ENGINE), "?")
    cpu = cpu_line([r for _, _, _, r, _ in attempts])
    text = [f"Campaign `{campaign}` of `reports/{path.name}` (source revision `{revision[:12]}`), run on "
            f"{cpu}; n = {'/'.join(map(str, n))} repeats per row. The engine's LibTorch is {torch}. "
            + allocator_text([r for s, _, _, r, _ in attempts if s != ENGINE]), "", *lines]
    # The closest call: the larger fp32 model on one rank, and how much of its step is forward-backward.
    fp32 = [k for k in order if k[1] == "fp32" and k[2] == 1]
    if fp32:
        key = max(fp32, key=lambda k: k[0])
        step, fwd, opt = (statistics.mean(values(key, ENGINE, m) or [0]) for m in
                          ("step_time_ms", "forward_backward_ms", "optimizer_step_ms"))
        if step:
            ids = set(groups[key].get(ENGINE, []))
            engine_results = [r for _, _, _, r, a in attempts if a in ids]
            engine_gemms = gemm_text(engine_results)
            peer_blas = next((r.get("environment", {}).get("blas_vendor") for s, _, _, r, _ in attempts
                              if s != ENGINE and r.get("environment", {}).get("blas_vendor")), "its BLAS")
            gemm_ms, gemm_of_peak, mfu = (values(key, ENGINE, m) for m in (
                "mfu.dense_gemm.ms_per_step", "mfu.dense_gemm.of_calibrated_peak", "mfu.of_calibrated_peak"))
            if gemm_ms and gemm_of_peak and mfu:
                gemm = statistics.mean(gemm_ms)
                # Newer engines measure the peak on the model's own shapes and chosen library.
                of_shapes = any(r.get("mfu", {}).get("calibrated_peak_source") == "model_gemm_shapes"
                                for r in engine_results)
                peak = ("GEMM peak calibrated at launch (the fastest of the model's shapes on its chosen library)"
                        if of_shapes else "SGEMM peak calibrated at launch")
                text += ["", f"On {models[key[0]]} at 1 rank the engine's dense-layer GEMMs, each timed as it ran, "
                             f"take {gemm:.0f} ms of its {step:.0f} ms step ({100 * gemm / step:.0f} %; forward-"
                             f"backward {fwd:.0f} ms, optimizer {opt:.0f} ms) and run at "
                             f"{100 * statistics.mean(gemm_of_peak):.0f} % of the {peak}; "
                             f"its MFU of that peak is {100 * statistics.mean(mfu):.0f} %. The engine ran them on "
                             f"{engine_gemms}, PyTorch on {peer_blas}; the other {100 - 100 * gemm / step:.0f} % of the "
                             f"step is attention, cross-entropy, layer norms, AdamW and the engine's own code."]
                text += ceiling_text(key, gemm, step, best_peer(key), values, engine_results, lead_goal(cpu))
                text += step_profile_text(path, key[0])
            else:
                text += ["", f"On {models[key[0]]} at 1 rank the engine's forward-backward takes {fwd:.0f} ms of its "
                             f"{step:.0f} ms step ({100 * fwd / step:.0f} %) and the optimizer {opt:.0f} ms: the step "
                             f"is mostly the GEMMs inside forward-backward, which the engine ran on {engine_gemms} "
                             f"and PyTorch on {peer_blas}. That share is a ratio of phase times, not a profile."]
    table = {(k[0], k[2]): statistics.mean(values(k, ENGINE)) for k in order if k[1] == "fp32" and values(k, ENGINE)}
    if slower_bf16:
        text += ["", "PyTorch's bf16 ran slower than its fp32 for " + ", ".join(slower_bf16) + ": there the last "
                 "column holds the engine's bf16 against PyTorch's fp32, the precision a user would pick."]
    bf16 = [k for k in order if k[1] == "bf16" and k[2] == 1 and values(k, EAGER)]
    isa = {word for _, _, _, r, _ in attempts for word in r.get("environment", {}).get("cpu_isa", "").split()}
    if bf16 and not isa & {"avx512_bf16", "amx"}:
        eager = statistics.mean(values(bf16[0], EAGER))
        text += ["", f"The bf16 ratios say that PyTorch's bf16 GEMMs fall back to a scalar loop on a CPU without "
                     f"bf16 instructions (PyTorch eager: {eager:.0f} tokens/s), not that the engine is faster at bf16 "
                     f"arithmetic; on CPUs with AVX-512 BF16 or AMX both take the native path."]
    elif bf16:
        text += ["", "This CPU has bf16 instructions (" + ", ".join(sorted(isa & {"avx512_bf16", "amx"})) +
                 "): both sides' bf16 GEMMs take ATen's native path (the engine's results say `bf16_gemm`: "
                 "native), so the bf16 rows compare one arithmetic."]
    return text, models, cpu, table


def figures():
    text = ["Written by `scripts/readme_figures.py` from the committed databases named below; the "
            "`readme_figures` test runs it to check that they still agree. Each table comes from one CPU: "
            "ratios hold for that CPU, not for every machine."]
    models, tables = {}, {}
    for path in comparison_databases():
        if not path.exists():
            continue
        lines, found_models, cpu, table = comparison(path)
        text += ["", *lines]
        models.update(found_models)
        tables.setdefault(cpu, table)
    others = other_campaigns(models, tables)
    if others:
        text += ["", "The same models at the same rank counts in the other committed campaigns (mtengine DDP, fp32, "
                     "unprofiled; their other axes, such as the gradient sync mode or bucket size, differ). Each "
                     "campaign ran at its own time on a shared virtual machine, so compare figures within one "
                     "campaign, not across them:", "", *others]
    return "\n".join(text) + "\n"


def main():
    readme = ROOT / "README.md"
    text = readme.read_text(encoding="utf-8")
    if BEGIN not in text or END not in text:
        sys.exit(f"README.md has no {BEGIN} … {END} block")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    updated = f"{head}{BEGIN}\n{figures()}{END}{tail}"
    if "--check" in sys.argv[1:]:
        if updated != text:
            sys.exit("FAIL: README.md's figures differ from the ddp_vs_pytorch databases; "
                     "run scripts/readme_figures.py and commit README.md")
        print("PASS: README.md's figures agree with the database")
        return
    readme.write_text(updated, encoding="utf-8")


if __name__ == "__main__":
    main()
