#!/usr/bin/env python3
"""The README's list of "the same models in the other committed campaigns" holds only campaigns of
the same model: the same shape, vocabulary and heads included. strategies_cpu trains a model of the
table's width, depth, sequence and batch but with half its vocabulary and heads (4.2M parameters
against 5.3M): its tokens/s are no figure for the table's model."""
import os
import sys
from pathlib import Path

ROOT = Path(os.environ.get("MT_SOURCE_DIR", Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(ROOT / "scripts"))
import readme_figures  # noqa: E402

models, tables = {}, {}
for path in readme_figures.comparison_databases():
    if path.exists():
        _, found, cpu, table = readme_figures.comparison(path)
        models.update(found)
        tables.setdefault(cpu, table)
others = readme_figures.other_campaigns(models, tables)
assert any("reports/upstream_cpu.sqlite" in line for line in others), others  # the same 23.2M model
strategies = [line for line in others if "reports/strategies_cpu.sqlite" in line]
assert not strategies, strategies
small = {"vocab_size": "4096", "d_model": "256", "n_heads": "4", "n_layers": "4", "seq_length": "128",
         "batch_size": "4"}
assert readme_figures.model_key(small) != readme_figures.model_key(dict(small, vocab_size="8192"))
assert readme_figures.model_key(small) != readme_figures.model_key(dict(small, n_heads="8"))
assert readme_figures.change(997, 997, 1000) == "+0 %", readme_figures.change(997, 997, 1000)  # not "-0 %"
assert readme_figures.change(720, 1010, 1000) == "-28 % to +1 %", readme_figures.change(720, 1010, 1000)
print(f"ok: {len(others)} lines, each of a campaign of the table's own model")
