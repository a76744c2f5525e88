#!/usr/bin/env python3
"""The engine's include graph against its layering rules.

Usage: check_layers.py SRC_DIR --layers ROOM[,ROOM...] --torch-free DIR[,DIR...] [--draw]

Rules (the layers and torch-free folders come from engine/CMakeLists.txt, their one source):
  * every file belongs to the longest listed folder (room) that holds it, and may include only
    files of its own room or a lower one (the order of --layers, lowest first); main.cpp sits
    above them all, and a file in no listed room is itself an error;
  * a file under a torch-free folder never includes LibTorch (torch/, ATen/, c10/; its version
    macros excepted), directly or through a header of the project;
  * every quoted include names a file that exists under SRC_DIR.
--draw prints the folder-level include graph (edges between folders, with counts) instead.
Exits 1 with one line per broken rule.
"""
import argparse
import collections
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)
TORCH = ('torch/', 'ATen/', 'c10/')
# LibTorch's version macros: a few #defines, no library code, so a torch-free file may read them.
TORCH_ALLOWED = ('torch/version.h',)


def sources(src):
    for root, _, names in os.walk(src):
        for name in sorted(names):
            if name.endswith(('.h', '.cpp')):
                yield os.path.relpath(os.path.join(root, name), src)


def folder(rel):
    parts = rel.split(os.sep)
    return '/'.join(parts[:-1]) or '.'


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('src')
    ap.add_argument('--layers', required=True)
    ap.add_argument('--torch-free', required=True)
    ap.add_argument('--draw', action='store_true')
    args = ap.parse_args()
    layers = args.layers.split(',')
    torch_free = [d.strip('/') for d in args.torch_free.split(',')]
    rank = {name: i for i, name in enumerate(layers)}

    def room_of(rel):
        """The longest listed folder holding rel; main.cpp's room is '.' (above every other)."""
        if os.sep not in rel:
            return '.'
        matches = [r for r in layers if rel == r or rel.startswith(r + '/')]
        return max(matches, key=len) if matches else None

    def layer_of(rel):
        room = room_of(rel)
        return len(layers) if room == '.' else rank[room]

    quoted, angled = {}, {}
    for rel in sources(args.src):
        with open(os.path.join(args.src, rel), encoding='utf-8') as f:
            text = f.read()
        quoted[rel] = [m.group(2) for m in INCLUDE.finditer(text) if m.group(1) == '"']
        angled[rel] = [m.group(2) for m in INCLUDE.finditer(text) if m.group(1) == '<']

    if args.draw:
        edges = collections.Counter()
        for rel, incs in quoted.items():
            for inc in incs:
                if folder(rel) != folder(inc):
                    edges[(folder(rel), folder(inc))] += 1
        for (a, b), n in sorted(edges.items()):
            print(f'{a} -> {b} ({n})')
        return 0

    problems = [f'{rel}: in no layer (add its folder to MT_ENGINE_LAYERS where it belongs)'
                for rel in sorted(quoted) if room_of(rel) is None]
    for rel, incs in sorted(quoted.items()):
        if room_of(rel) is None:
            continue
        for inc in incs:
            if inc not in quoted:
                problems.append(f'{rel}: includes "{inc}", which is not a file under {args.src}')
            elif room_of(inc) is not None and layer_of(inc) > layer_of(rel):
                problems.append(f'{rel}: includes "{inc}" from a higher layer '
                                f'({room_of(inc)} is above {room_of(rel)})')

    # Which files reach LibTorch, through project headers included transitively.
    memo = {}

    def torch_path(rel, seen=()):
        if rel in memo:
            return memo[rel]
        direct = next((a for a in angled.get(rel, [])
                       if a.startswith(TORCH) and a not in TORCH_ALLOWED), None)
        found = [rel, f'<{direct}>'] if direct else None
        for inc in quoted.get(rel, []):
            if found or inc in seen or inc not in quoted:
                continue
            sub = torch_path(inc, seen + (rel,))
            if sub:
                found = [rel] + sub
        memo[rel] = found
        return found

    for rel in sorted(quoted):
        if any(rel == d or rel.startswith(d + '/') for d in torch_free):
            chain = torch_path(rel)
            if chain:
                problems.append(f'{rel}: in a torch-free folder but reaches LibTorch: '
                                + ' -> '.join(chain))
    for p in problems:
        print(p)
    if problems:
        return 1
    print(f'PASS: {len(quoted)} files; includes run only downward through {" < ".join(layers)}; '
          f'{", ".join(torch_free)} never reach LibTorch')
    return 0


if __name__ == '__main__':
    sys.exit(main())
