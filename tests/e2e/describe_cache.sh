#!/usr/bin/env bash
# mtrun asks the engine to describe its workloads once per engine binary and keeps the answers
# (under $XDG_CACHE_HOME/mtrun). A kept answer that cannot be read back (cut short, damaged, edited
# by hand) is no answer: the engine is asked again and the file rewritten, where before the
# workload stayed unavailable until someone found and deleted the file.
source "$(dirname "$0")/lib.sh"
export XDG_CACHE_HOME="$WORK/cache"

# An engine that describes each workload as the real one does (the runner's test copies of its
# descriptions) and counts how often it was asked.
cat > "$WORK/engine" <<SH
#!/bin/sh
[ "\$2" = --describe ] || exit 2
echo "\$1" >> "$WORK/asked"
cat "$MT_SOURCE_DIR/runner/tests/data/engine_\$1_description.json"
SH
chmod +x "$WORK/engine"
cat > "$WORK/train.yaml" <<'YAML'
name: train
studies:
  - name: s
    workload: train
    matrix: {strategy: [ddp, fsdp]}
YAML
asked_train() { grep -c '^train$' "$WORK/asked" || true; }
plan() {
  capture "$MTRUN" plan "$WORK/train.yaml" --engine "$WORK/engine"
  expect_eq "$RC" 0 "plan ($1)"
  expect_contains "$OUT" "strategy=fsdp" "plan ($1)"
}

plan "first"
expect_eq "$(asked_train)" 1 "the engine described train once"
cached=$(ls "$XDG_CACHE_HOME"/mtrun/*-train.json)
plan "from the cache"
expect_eq "$(asked_train)" 1 "the second plan read the cache"

for damage in cut_short wrong_type not_json empty_object; do
  case $damage in
    cut_short) head -c 200 "$cached" > "$WORK/damaged" ;;
    wrong_type) echo '{"subcommand": 7, "options": []}' > "$WORK/damaged" ;;
    not_json) printf '\x00\x01 garbage' > "$WORK/damaged" ;;
    empty_object) echo '{}' > "$WORK/damaged" ;;
  esac
  cp "$WORK/damaged" "$cached"
  before=$(asked_train)
  plan "over a cache file $damage"
  expect_eq "$(asked_train)" $((before + 1)) "a cache file $damage: the engine was asked again"
  cmp -s "$cached" "$MT_SOURCE_DIR/runner/tests/data/engine_train_description.json" ||
    fail "a cache file $damage was not rewritten with the engine's answer"
done
echo "PASS (describe cache)"
