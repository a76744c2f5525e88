#!/usr/bin/env python3
"""The README's operator paragraph for a CPU: from its step profile's quiet profiled runs, and,
where every profiled run of the model ran on a disturbed machine, a sentence that says so instead
of nothing. Works on copies of the committed Zen 4 databases, with those runs marked disturbed."""
import os
import shutil
import sqlite3
import sys
import tempfile
from pathlib import Path

ROOT = Path(os.environ.get("MT_SOURCE_DIR", Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(ROOT / "scripts"))
import readme_figures  # noqa: E402

# The 23.2M model (vocabulary, width, heads, layers, sequence, batch), as trial parameters spell it.
UPSTREAM = ("8192", "512", "8", "6", "256", "2")
work = Path(tempfile.mkdtemp())
try:
    for name in ("ddp_vs_pytorch_epyc_zen4", "step_profile_cpu_epyc_zen4"):
        shutil.copy(ROOT / "reports" / f"{name}.sqlite", work / f"{name}.sqlite")
    comparison = work / "ddp_vs_pytorch_epyc_zen4.sqlite"

    quiet = readme_figures.step_profile_text(comparison, UPSTREAM)
    assert quiet and quiet[1].startswith("Operator by operator"), quiet
    assert "the dense GEMMs take" in quiet[1] and "`mt::fused_adamw`" in quiet[1], quiet

    db = sqlite3.connect(work / "step_profile_cpu_epyc_zen4.sqlite")
    campaign, _ = readme_figures.latest_campaign(db)
    profiled = [a for s, r, p, _, a in readme_figures.successful_attempts(db, campaign, keep_disturbed=True)
                if s == "profiled" and r == 1 and
                readme_figures.model_key(p) == UPSTREAM]
    assert profiled, "the committed step profile has no profiled 23.2M run at 1 rank"
    for attempt in profiled:
        db.execute("UPDATE attempt_conditions SET verdict = 'disturbed' WHERE attempt_id = ?", (attempt,))
    db.commit()
    db.close()

    disturbed = readme_figures.step_profile_text(comparison, UPSTREAM)
    assert len(disturbed) == 2 and "holds no profiled run of that model at 1 rank on a quiet machine" in disturbed[1], disturbed
    assert f"{len(profiled)} ran on a disturbed one" in disturbed[1], disturbed
    print(f"ok: operator paragraph from quiet runs; {len(profiled)} disturbed runs are named, not dropped")
finally:
    shutil.rmtree(work)
