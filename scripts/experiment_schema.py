#!/usr/bin/env python3
"""The `train` parameters of schemas/experiment.schema.json, generated from the engine's own
description (`mtengine train --describe`): names, types, choices, bounds, help text.

  scripts/experiment_schema.py DESCRIPTION.json --write   # update the schema
  scripts/experiment_schema.py DESCRIPTION.json --check   # exit 1 when the schema has drifted

DESCRIPTION.json is `mtengine train --describe` output (or runner/tests/data/engine_train_description.json).
"""
import json
import os
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
SCHEMA = os.path.join(ROOT, "schemas", "experiment.schema.json")
RANKS = {"type": "integer", "minimum": 1, "description": "ranks the launcher starts (mtrun's own parameter)"}


def param_schema(option):
    kind = option["type"]
    if kind == "choice":
        out = {"enum": option["choices"]}
    elif kind == "boolean":
        out = {"type": "boolean"}
    else:
        out = {"type": "integer" if kind == "integer" else "number"}
        for bound, exclusive_key, plain, exclusive in (("minimum", "exclusive_minimum", "minimum", "exclusiveMinimum"),
                                                       ("maximum", "exclusive_maximum", "maximum", "exclusiveMaximum")):
            if bound in option:
                value = option[bound]
                value = int(value) if float(value).is_integer() else value
                out[exclusive if option.get(exclusive_key) else plain] = value
    out["description"] = option["help"]
    return out


def train_properties(description):
    properties = {"ranks": RANKS}
    for option in description["options"]:
        if option.get("experiment_param", True) and option["type"] != "text":
            properties[option["param"]] = param_schema(option)
    return properties


def main():
    if len(sys.argv) != 3 or sys.argv[2] not in ("--write", "--check"):
        sys.exit(__doc__)
    description = json.load(open(sys.argv[1]))
    raw = open(SCHEMA).read()
    schema = json.loads(raw)
    params = schema["$defs"]["trainParams"]
    wanted = train_properties(description)
    if sys.argv[2] == "--check":
        current = params["properties"]
        drift = sorted(set(wanted) ^ set(current)) + sorted(k for k in wanted if k in current and wanted[k] != current[k])
        if drift:
            sys.exit(f"schemas/experiment.schema.json disagrees with the engine about: {', '.join(drift)} "
                     "(run scripts/experiment_schema.py DESCRIPTION --write)")
        print(f"ok: the schema's {len(wanted)} train parameters are the engine's")
        return
    params["properties"] = wanted
    params["propertyNames"]["anyOf"][0]["enum"] = list(wanted)
    open(SCHEMA, "w").write(json.dumps(schema, indent=2, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
