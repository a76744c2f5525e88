#!/usr/bin/env python3
"""The names in schemas/result.schema.json that the engine defines: the strategies (`strategy`) and
the collectives (`rows[].operation`), taken from `mtengine describe` (given as a file).

  result_schema_names.py DESCRIBE.json --write   rewrite the two enums in place
  result_schema_names.py DESCRIBE.json --check   exit 1 naming the enum that differs
"""
import json
import sys
from pathlib import Path

SCHEMA = Path(__file__).resolve().parent.parent / "schemas" / "result.schema.json"


def derived(describe):
    return {
        ("properties", "strategy"): [s["name"] for s in describe["strategies"]],
        ("properties", "rows", "items", "properties", "operation"): [c["name"] for c in describe["collectives"]],
    }


def node(schema, path):
    for key in path:
        schema = schema[key]
    return schema


def main():
    if len(sys.argv) != 3 or sys.argv[2] not in ("--write", "--check"):
        sys.exit(__doc__)
    describe = json.loads(Path(sys.argv[1]).read_text())
    text = SCHEMA.read_text()
    schema = json.loads(text)
    stale = []
    for path, names in derived(describe).items():
        entry = node(schema, path)
        if entry.get("enum") != names:
            stale.append(f"{'.'.join(path)}: {entry.get('enum')} != mtengine describe's {names}")
            # Rewritten in the text itself, so the file keeps its hand-made layout.
            text = text.replace(json.dumps({"enum": entry.get("enum")}), json.dumps({"enum": names}), 1)
    if sys.argv[2] == "--check":
        if stale:
            sys.exit("schemas/result.schema.json is stale (run scripts/regenerate_descriptions.sh):\n  " +
                     "\n  ".join(stale))
        print("ok: result.schema.json names the engine's strategies and collectives")
        return
    rewritten = json.loads(text)
    if any(node(rewritten, path).get("enum") != names for path, names in derived(describe).items()):
        sys.exit("result_schema_names: could not rewrite the enums in place")
    if stale:
        SCHEMA.write_text(text)


if __name__ == "__main__":
    main()
