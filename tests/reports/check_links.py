#!/usr/bin/env python3
"""Every relative link in the committed reports, the README and the docs resolves inside the
repository: files exist, and #anchors name a heading of the file they point to. Paths a report
cites in code (`docs/measurement.md`) exist too, and nothing — documents, code comments, scripts —
cites a document the repository does not hold."""
import os
import re
import sys
from pathlib import Path

ROOT = Path(os.environ.get("MT_SOURCE_DIR", Path(__file__).resolve().parents[2]))
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
CITED_PATH = re.compile(r"`((?:docs|runner|schemas|experiments|benchmarks)/[\w./-]+\.\w+)`")
FENCE = re.compile(r"^\s*```")
# The team's design notes and the folder beside the repository: users have neither. Written with
# character classes so that this file does not match what it looks for.
OUTSIDE = re.compile(r"DESIGN[.]md|[.][.]/shared[/]")


def documents():
    files = [ROOT / "README.md", ROOT / "runner" / "REPORTS.md"]
    files += sorted((ROOT / "reports").glob("*.md"))
    files += sorted((ROOT / "docs").glob("*.md"))
    return [f for f in files if f.exists()]


def prose_lines(path):
    """Lines outside fenced code blocks, with inline code removed (links there are not links)."""
    inside = False
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if FENCE.match(line):
            inside = not inside
            continue
        if not inside:
            yield number, line


def slug(heading):
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(path):
    return {slug(line.lstrip("#")) for _, line in prose_lines(path) if line.startswith("#")}


def check(path):
    problems = []
    for number, line in prose_lines(path):
        where = f"{path.relative_to(ROOT)}:{number}"
        for cited in CITED_PATH.findall(line):
            if not (ROOT / cited).exists():
                problems.append(f"{where}: cites {cited}, which is not in the repository")
        if OUTSIDE.search(line):
            problems.append(f"{where}: cites a document outside the repository")
        for target in LINK.findall(re.sub(r"`[^`]*`", "", line)):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
                continue
            file_part, _, anchor = target.partition("#")
            resolved = (path.parent / file_part).resolve() if file_part else path
            if not resolved.exists():
                problems.append(f"{where}: link {target} does not resolve ({resolved} is missing)")
                continue
            if not str(resolved).startswith(str(ROOT.resolve())):
                problems.append(f"{where}: link {target} leaves the repository")
            elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
                problems.append(f"{where}: link {target}: no heading #{anchor} in {resolved.name}")
    return problems


SOURCE_DIRS = ("engine", "runner", "scripts", "schemas", "tests", "benchmarks", "docker", "experiments", "cmake", ".ci")
SOURCE_SUFFIXES = {".cpp", ".h", ".c", ".py", ".sh", ".sql", ".json", ".yaml", ".txt", ".cmake", ".md", ""}


def outside_citations():
    """Code and scripts cite no team document outside the repository."""
    problems = []
    for top in SOURCE_DIRS:
        for path in sorted((ROOT / top).rglob("*")):
            if not path.is_file() or path.suffix not in SOURCE_SUFFIXES:
                continue
            try:
                text = path.read_text(encoding="utf-8")
            except (UnicodeDecodeError, OSError):
                continue
            for number, line in enumerate(text.splitlines(), 1):
                if OUTSIDE.search(line):
                    problems.append(f"{path.relative_to(ROOT)}:{number}: cites a document outside the repository")
    return problems


def main():
    docs = documents()
    problems = [p for d in docs for p in check(d)] + outside_citations()
    for p in problems:
        print("FAIL:", p)
    if problems:
        return 1
    print(f"PASS: every relative link in {len(docs)} documents resolves")
    return 0


if __name__ == "__main__":
    sys.exit(main())
