# Sourced by the benchmark scripts: MODEL_FLAGS, the model of ddp_vs_pytorch that $MODEL names
# (small: the quick model with 4 heads and vocab 4096, the default; upstream: the 23.2M model).
# Steps and warmup are each script's own.
case "${MODEL:-small}" in
  small) MODEL_FLAGS=(--vocab-size 4096 --d-model 256 --n-heads 4 --n-layers 4 --seq-length 128 --batch-size 4) ;;
  upstream) MODEL_FLAGS=(--vocab-size 8192 --d-model 512 --n-heads 8 --n-layers 6 --seq-length 256 --batch-size 2) ;;
  *) echo "MODEL=$MODEL: expected small or upstream" >&2; exit 2 ;;
esac
