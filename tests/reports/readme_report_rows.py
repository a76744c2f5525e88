#!/usr/bin/env python3
"""The README's index of committed reports quotes their figures, and each figure must be one the
report gives: every decimal figure in a row's description (1.23, 0.95) is a number of the report
the row links, as printed there or rounded to the figure's decimals (1.008 read as 1.01), and every
count ("met on 8 of 8 curves") is in it as written. A figure from another campaign of the same
database is looked up in that campaign's report, which mtrun renders (the row names the campaign by
its id). Parameter counts that name a model (23.2M) are names, not figures. A row left behind when
its report is re-run, or a figure worked out by hand that no report gives, fails here.

  MTRUN=build/bin/mtrun tests/reports/readme_report_rows.py
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(os.environ.get("MT_SOURCE_DIR", Path(__file__).resolve().parents[2]))
MTRUN = os.environ.get("MTRUN", str(ROOT / "build/bin/mtrun"))
ROW = re.compile(r"^\| \[([^\]]+)\]\((reports/[^)]+)\.md\) \| [^|]* \| (.*) \|$")
DECIMAL = re.compile(r"(?<![\w.])(\d+\.\d+)(?![\d.]|M\b|M-)")
COUNT = re.compile(r"\b\d+ of \d+\b")
CAMPAIGN = re.compile(r"`([0-9a-f]{12})`")


def figures(description):
    """The decimal figures and counts a row's description quotes, leaving out code spans."""
    text = re.sub(r"`[^`]*`", "", description)
    return DECIMAL.findall(text), COUNT.findall(text)


def numbers_in(text):
    return set(DECIMAL.findall(text))


def gives(numbers, figure):
    """Whether a report printing `numbers` gives `figure`, as printed or rounded to its decimals."""
    decimals = len(figure.split(".")[1])
    return any(n == figure or f"{float(n):.{decimals}f}" == figure for n in numbers)


def campaign_report(report, campaign, work):
    """The report mtrun renders for another campaign of `report`'s database, with the flags the
    committed report was rendered with."""
    database = work / f"{Path(report).name}.sqlite"
    if not database.exists():
        shutil.copy(ROOT / f"{report}.sqlite", database)  # reading a committed database leaves no files beside it
    args_file = ROOT / f"{report}.args"
    args = args_file.read_text().split("\n") if args_file.exists() else []
    run = subprocess.run([MTRUN, "--db", str(database), "report", "--campaign", campaign, *filter(None, args)],
                         cwd=ROOT, capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"readme_report_rows: mtrun report --campaign {campaign} of {report}.sqlite: {run.stderr.strip()}")
    return run.stdout


def not_given(decimals, counts, text):
    """The figures and counts `text` (one or more reports) does not give."""
    numbers = numbers_in(text)
    return [f for f in decimals if not gives(numbers, f)] + [c for c in counts if c not in text]


def check_row(name, report, description, work):
    """What the row quotes that its report does not give, in words."""
    decimals, counts = figures(description)
    text = (ROOT / f"{report}.md").read_text()
    missing = not_given(decimals, counts, text)
    if missing:  # perhaps from a campaign the row names
        text += "".join(campaign_report(report, c, work) for c in CAMPAIGN.findall(description))
        missing = not_given(decimals, counts, text)
    return [f"{name}: '{m}' is in no report of {report}.sqlite the row names" for m in missing]


def main():
    rows = [ROW.match(line) for line in (ROOT / "README.md").read_text().splitlines()]
    rows = [r for r in rows if r]
    if not rows:
        sys.exit("readme_report_rows: no report index in README.md")
    work = Path(tempfile.mkdtemp())
    try:
        problems, quoted = [], 0
        for row in rows:
            name, report, description = row.groups()
            decimals, counts = figures(description)
            quoted += len(decimals) + len(counts)
            problems += check_row(name, report, description, work)
    finally:
        shutil.rmtree(work)
    for p in problems:
        print(p, file=sys.stderr)
    print(f"readme_report_rows: {len(rows)} rows, {quoted} figures quoted, {len(problems)} not in their reports")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
