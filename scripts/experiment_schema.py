#!/usr/bin/env python3
"""The engine workloads' parameters in schemas/experiment.schema.json, generated from the engine's
own descriptions (`mtengine WORKLOAD --describe`): names, types, choices, bounds, help text.

  scripts/experiment_schema.py DESCRIPTION.json [DESCRIPTION.json ...] --write   # update the schema
  scripts/experiment_schema.py DESCRIPTION.json [DESCRIPTION.json ...] --check   # exit 1 when it has drifted

Each DESCRIPTION.json is `mtengine WORKLOAD --describe` output (or
runner/tests/data/engine_WORKLOAD_description.json); its `subcommand` names the workload. Every
workload gets `WORKLOADParams` (its parameters and their values) and a study rule that checks a
study of it against them. Its `WORKLOADMatrix` (each parameter as one value or a list) is generated
too, except train's, which predates the generator and lists the axes experiments vary.
"""
import json
import os
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
SCHEMA = os.path.join(ROOT, "schemas", "experiment.schema.json")
RANKS = {"type": "integer", "minimum": 1, "description": "ranks the launcher starts (mtrun's own parameter)"}
ENV_NAME = {"pattern": "^env\\.[A-Za-z_][A-Za-z0-9_]*$"}
HAND_MADE_MATRIX = {"train"}


def param_schema(option):
    kind = option["type"]
    if kind == "choice":
        out = {"enum": option["choices"]}
    elif kind == "boolean":
        out = {"type": "boolean"}
    elif kind == "text":
        out = {"type": "string", "minLength": 1}
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


def workload_properties(description):
    properties = {"ranks": RANKS}
    for option in description["options"]:
        if option.get("experiment_param", True) and not option.get("repeatable"):
            properties[option["param"]] = param_schema(option)
    return properties


def params_def(name, properties):
    return {"description": f"parameters of the {name} workload (`mtengine {name} --help`)", "type": "object",
            "properties": properties, "propertyNames": {"anyOf": [{"enum": list(properties)}, ENV_NAME]}}


def matrix_def(name, properties):
    axes = {}
    for param in properties:
        one = {"$ref": f"#/$defs/{name}Params/properties/{param}"}
        axes[param] = {"oneOf": [one, {"type": "array", "minItems": 1, "uniqueItems": True, "items": one}]}
    return {"description": f"matrix axes of the {name} workload: a value or a list of values per parameter",
            "type": "object", "properties": axes, "propertyNames": {"anyOf": [{"enum": list(properties)}, ENV_NAME]}}


def study_rule(name):
    params = {"$ref": f"#/$defs/{name}Params"}
    return {"if": {"properties": {"workload": {"const": name}}},
            "then": {"properties": {"defaults": dict(params, additionalProperties=True),
                                    "matrix": {"$ref": f"#/$defs/{name}Matrix"},
                                    "exclude": {"type": "array", "items": params},
                                    "include": {"type": "array", "items": params}}}}


def wanted_schema(schema, descriptions):
    """The schema as the descriptions make it (a changed copy)."""
    schema = json.loads(json.dumps(schema))
    defs, study = schema["$defs"], schema["$defs"]["study"]
    for description in descriptions:
        name = description["subcommand"]
        properties = workload_properties(description)
        if f"{name}Params" not in defs:
            defs[f"{name}Params"] = params_def(name, properties)
        defs[f"{name}Params"]["properties"] = properties
        defs[f"{name}Params"]["propertyNames"]["anyOf"][0]["enum"] = list(properties)
        if name not in HAND_MADE_MATRIX:
            defs[f"{name}Matrix"] = matrix_def(name, properties)
        workloads = study["properties"]["workload"]["enum"]
        if name not in workloads:
            workloads.insert(workloads.index("command"), name)
        rules = study["allOf"]
        # The rules that name one workload; others (stages, profile) are hand-made and stay put.
        ruled = [r.get("if", {}).get("properties", {}).get("workload", {}).get("const") for r in rules]
        if name not in ruled:
            rules.insert(ruled.index("command") if "command" in ruled else len(rules), study_rule(name))
    return schema


def main():
    if len(sys.argv) < 3 or sys.argv[-1] not in ("--write", "--check"):
        sys.exit(__doc__)
    descriptions = [json.load(open(path)) for path in sys.argv[1:-1]]
    schema = json.loads(open(SCHEMA).read())
    wanted = wanted_schema(schema, descriptions)
    if sys.argv[-1] == "--check":
        drift = []
        for description in descriptions:
            name = description["subcommand"]
            for key in (f"{name}Params", f"{name}Matrix"):
                have, want = schema["$defs"].get(key), wanted["$defs"][key]
                if have != want:
                    changed = sorted(k for k in set(want.get("properties", {})) | set((have or {}).get("properties", {}))
                                     if (have or {}).get("properties", {}).get(k) != want["properties"].get(k))
                    drift.append(f"{key} ({', '.join(changed) or 'its layout'})")
        if schema["$defs"]["study"] != wanted["$defs"]["study"]:
            drift.append("the study rules")
        if drift:
            sys.exit(f"schemas/experiment.schema.json disagrees with the engine about: {'; '.join(drift)} "
                     "(run scripts/experiment_schema.py DESCRIPTION... --write)")
        names = ", ".join(d["subcommand"] for d in descriptions)
        print(f"ok: the schema's parameters of {names} are the engine's")
        return
    open(SCHEMA, "w").write(json.dumps(wanted, indent=2, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
