#!/usr/bin/env python3
"""The README's index of committed reports quotes their figures, and each figure must be one the
report gives: every decimal figure in a row's description (1.23, 0.95) is a number of the report
the row links, as printed there or rounded to the figure's decimals (1.008 read as 1.01), and every
count ("met on 8 of 8 curves") is in it as written. A ratio (1.23×, either end of 1.23–1.28×) must be
one the report gives as a ratio: followed by ×, or in a column of ratios, not a confidence bound or a
time that happens to print the same digits. A figure from another campaign of the same
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
NUMBER = r"(?<![\w.])(\d+\.\d+)"
DECIMAL = re.compile(NUMBER + r"(?![\d.]|M\b|M-)")
RATIO = re.compile(NUMBER + r"\s?×")
RATIO_RANGE = re.compile(NUMBER + r"\s?×?\s?[–-]\s?(\d+\.\d+)\s?×")
RATIO_COLUMN = re.compile(r"ratio|÷|×", re.IGNORECASE)
COUNT = re.compile(r"\b\d+ of \d+\b")
CAMPAIGN = re.compile(r"`([0-9a-f]{12})`")


def ratios_in(text):
    """The figures `text` gives as ratios: followed by ×, either end of a range of them, or in a table
    column whose heading names a ratio."""
    ratios = set(RATIO.findall(text))
    ratios.update(end for pair in RATIO_RANGE.findall(text) for end in pair)
    heading = None
    for line in text.splitlines():
        if not line.startswith("|"):
            heading = None
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if heading is None:
            heading = cells
        elif not set("".join(cells)) <= set("-: "):
            for title, cell in zip(heading, cells):
                if RATIO_COLUMN.search(title):
                    ratios.update(DECIMAL.findall(cell))
    return ratios


def figures(description):
    """The decimal figures, the ratios among them and the counts a row's description quotes,
    leaving out code spans."""
    text = re.sub(r"`[^`]*`", "", description)
    return DECIMAL.findall(text), ratios_in(text), COUNT.findall(text)


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


def not_given(quoted, text):
    """The figures and counts `text` (one or more reports) does not give, each with what it is."""
    decimals, ratios, counts = quoted
    numbers, report_ratios = numbers_in(text), ratios_in(text)
    return ([f"'{f}×' as a ratio" for f in decimals if f in ratios and not gives(report_ratios, f)] +
            [f"'{f}'" for f in decimals if f not in ratios and not gives(numbers, f)] +
            [f"'{c}'" for c in counts if c not in text])


def check_row(name, report, description, work):
    """What the row quotes that its report does not give, in words."""
    quoted = figures(description)
    text = (ROOT / f"{report}.md").read_text()
    missing = not_given(quoted, text)
    if missing:  # perhaps from a campaign the row names
        text += "".join(campaign_report(report, c, work) for c in CAMPAIGN.findall(description))
        missing = not_given(quoted, text)
    return [f"{name}: {m} is in no report of {report}.sqlite the row names" for m in missing]


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
            decimals, _, counts = figures(description)
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
