#!/usr/bin/env python3
"""Every committed plot (reports/*/*.svg) keeps its text inside the canvas and names each series
once: a label cut at the edge or two series sharing a name are what a reader cannot recover from.
Text widths are estimated as the charts estimate them (about 7 px a character at 12 px, 9.2 px a
bold title character), so this checks the layout rules, not a font."""
import math
import os
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(os.environ.get("MT_SOURCE_DIR", Path(__file__).resolve().parents[2]))
NS = "{http://www.w3.org/2000/svg}"
ROTATE = re.compile(r"rotate\((-?[\d.]+)")


def text_width(element, text):
    size = float(element.get("font-size", "12"))
    per_char = 9.2 if element.get("font-weight") == "bold" else 7.0 * size / 12
    return len(text) * per_char


def check(path):
    problems = []
    root = ET.parse(path).getroot()
    width, height = float(root.get("width")), float(root.get("height"))
    legend = []
    for element in root.iter(NS + "text"):
        text = "".join(element.itertext())
        if not text:
            continue
        x, y = float(element.get("x")), float(element.get("y"))
        w = text_width(element, text)
        anchor = element.get("text-anchor", "start")
        rotation = ROTATE.search(element.get("transform", ""))
        angle = float(rotation.group(1)) if rotation else 0.0
        if angle == 0:
            left = {"start": x, "middle": x - w / 2, "end": x - w}[anchor]
            box = (left, y - 10, left + w, y + 3)
        elif anchor == "end":  # hangs from (x, y) back along the rotated baseline
            dx, dy = -w * math.cos(math.radians(angle)), -w * math.sin(math.radians(angle))
            box = (min(x, x + dx), min(y, y + dy), max(x, x + dx), max(y, y + dy))
        else:  # the rotated axis title, centred on (x, y)
            box = (x - 12, y - w / 2, x + 2, y + w / 2)
        if box[0] < -0.5 or box[1] < -0.5 or box[2] > width + 0.5 or box[3] > height + 0.5:
            problems.append(f"{path.relative_to(ROOT)}: '{text}' reaches past the canvas ({width:.0f}×{height:.0f})")
        # Legend entries are the only plain texts: no anchor, size, weight or rotation.
        if set(element.keys()) == {"x", "y"}:
            legend.append(text)
    for name in sorted({n for n in legend if legend.count(n) > 1}):
        problems.append(f"{path.relative_to(ROOT)}: two series are named '{name}'")
    return problems


def main():
    plots = sorted((ROOT / "reports").glob("*/*.svg"))
    if not plots:
        sys.exit("FAIL: no committed plot found")
    problems = [p for plot in plots for p in check(plot)]
    for p in problems:
        print(p)
    if problems:
        sys.exit(f"FAIL: {len(problems)} problem(s) in {len(plots)} plots")
    print(f"PASS: {len(plots)} plots keep their text inside the canvas and name each series once")


if __name__ == "__main__":
    main()
