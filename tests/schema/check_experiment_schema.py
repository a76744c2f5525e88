#!/usr/bin/python3
"""schemas/experiment.schema.json accepts every experiment we ship and rejects malformed ones.

Run with Debian's python3 (python3-jsonschema, python3-yaml): the schema is what editors use, so it
must agree with mtrun about what a valid file is.
"""
import glob
import json
import os
import sys

import jsonschema
import yaml

root = os.environ.get("MT_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
schema = json.load(open(os.path.join(root, "schemas", "experiment.schema.json")))
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)

valid = sorted(glob.glob(os.path.join(root, "experiments", "*.yaml")))
valid += [os.path.join(root, "runner", "tests", "data", n) for n in ("valid.yaml", "valid_language.yaml", "valid_chain.yaml", "questions_peer.yaml")]
# Files mtrun rejects for a reason the schema can express (unknown keys, types, enums, empty lists).
invalid = [os.path.join(root, "runner", "tests", "data", n) for n in
           ("bad_key.yaml", "bad_strategy.yaml", "bad_type.yaml", "empty_axis.yaml", "bad_workload.yaml",
            "bad_repeat.yaml", "bad_launcher.yaml", "no_studies.yaml", "command_missing.yaml", "bad_param.yaml",
            "exclude_param.yaml", "stage_key.yaml", "stage_outcome.yaml", "stage_compare.yaml",
            "stage_command_study.yaml", "profile_value.yaml", "profile_command.yaml", "metric_better.yaml",
            "question_key.yaml")]

failures = []
for path in valid:
    errors = list(validator.iter_errors(yaml.safe_load(open(path))))
    if errors:
        failures.append(f"{path}: should be valid: {errors[0].message}")
for path in invalid:
    if validator.is_valid(yaml.safe_load(open(path))):
        failures.append(f"{path}: should be rejected by the schema")
for f in failures:
    print("FAIL:", f)
print(f"{len(valid) + len(invalid) - len(failures)} passed, {len(failures)} failed")
sys.exit(1 if failures else 0)
