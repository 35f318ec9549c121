#!/usr/bin/env bash
# Issue 30's experiment on one CUDA GPU (docs/results/negation-training.md, "On a GPU"): the base model's
# evaluation, the training recipe with three seeds (seed 0 twice, to check that it reproduces bit for bit), the
# ablations, and every adapter's evaluation, all at once on the one GPU (a 135M model uses a few GB of it).
#
#   bash scripts/negation_training_gpu.sh WORK_DIR [RESULTS_DIR]
#
# WORK_DIR gets the run folders (runs/) and logs (logs/); it holds decrypted TIND sentences in the evaluation
# samples, so keep it outside any git tree. RESULTS_DIR (optional) gets, every PACK_EVERY seconds and at the end,
# gzipped tar files of what is finished (the training records and logs, the evaluation run folders without their
# HTML reports): the files that come back from a lent GPU machine. Each training's evaluation starts when it ends.
#
# Settings, from the environment: NEGKIT (the command, default `python3 -m negkit`), DEVICE (default cuda),
# STEPS (default 520: one pass over the mix; a dry run on a CPU sets a few), EVAL_STEPS (default 104), DEV (held-out
# examples per format, default 48), DTYPE (the training's, default float32 as on the CPU; bfloat16 is mixed
# precision on a GPU; the evaluations are exact, float32), MAX_MINUTES (a training stops there, recorded as such;
# default none), LIMITS (the evaluation's --limit), JOBS (at most this many trainings and evaluations at once,
# default 6: the base evaluation, the three seeds and two ablations first), PACK_EVERY (default 20), ONLY
# (space-separated run names). Then:
#   negkit compare WORK_DIR/runs/eval-base WORK_DIR/runs/eval-recipe-s0 ... --baseline WORK_DIR/runs/eval-base
set -u
work=${1:?usage: negation_training_gpu.sh WORK_DIR [RESULTS_DIR]}
results=${2:-}
mkdir -p "$work/runs" "$work/logs"
work=$(cd "$work" && pwd)
NEGKIT=${NEGKIT:-python3 -m negkit}
DEVICE=${DEVICE:-cuda}
STEPS=${STEPS:-520}
EVAL_STEPS=${EVAL_STEPS:-104}
DEV=${DEV:-48}
JOBS=${JOBS:-6}
PACK_EVERY=${PACK_EVERY:-20}
DTYPE=${DTYPE:-float32}
MAX_MINUTES=${MAX_MINUTES:-}
ONLY=${ONLY:-}
export CUBLAS_WORKSPACE_CONFIG=:4096:8 OMP_NUM_THREADS=${OMP_NUM_THREADS:-1} TOKENIZERS_PARALLELISM=false
export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True

TASKS=tind,scone,nan-nli,negnli-rte,negnli-mnli,condaqa,blimp-negation,neqa,semantoneg,negation-minimal-pairs-en
TASKS+=,blimp-guard,heldout-text # guards: the 60 non-negation BLiMP paradigms; BioScope and SFU text
LIMITS=${LIMITS:-tind=3000,negnli-mnli=500,condaqa=300,blimp-negation=1400,semantoneg=600,negation-minimal-pairs-en=400}
# The recipe: each source in its own evaluation format, facts first, then the contrast sets (docs/finetuning.md).
FORMATS="tind,scone,sick@scone,sick@nan-nli,sick@negnli-rte,condaqa"
MIX="tind:affirmative=960,tind=2880,scone=1600,sick@scone=480,sick@nan-nli=1200,sick@negnli-rte=800,condaqa=400"
LOSSES=(--unlikelihood-weight 0.5 --consistency-weight 1.0)
COMMON=(--model default --device "$DEVICE" --per-group 6 --dev-per-format "$DEV" --lora-layers 16-29 --lora-r 16
    --lora-alpha 32 --batch-size 16 --learning-rate 1e-3 --max-steps "$STEPS" --eval-steps "$EVAL_STEPS"
    --save-steps "$EVAL_STEPS" --dtype "$DTYPE" ${MAX_MINUTES:+--max-minutes "$MAX_MINUTES"} --no-progress)

without() { # the mix and phases without the sources named (a leave-one-format-out ablation)
    local mix=$MIX formats=$FORMATS source
    for source in "$@"; do
        mix=$(tr , '\n' <<<"$mix" | grep -v "^$source=" | paste -sd,)
        formats=$(tr , '\n' <<<"$formats" | grep -vx "$source" | paste -sd,)
    done
    echo "$mix|tind:affirmative;$formats"
}

wanted() { [ -z "$ONLY" ] || [[ " $ONLY " == *" $1 "* ]]; }

log() { echo "$(date -u +%FT%TZ) $*" >>"$work/logs/status.txt"; }

evaluate() { # NAME [--adapter DIR]
    local name=$1
    shift
    log "eval-$name start"
    $NEGKIT eval --model default --device "$DEVICE" --batch-size 32 --tasks "$TASKS" --limit "$LIMITS" --seed 0 \
        --no-progress --out "$work/runs/eval-$name" "$@" >"$work/logs/eval-$name.log" 2>&1
    log "eval-$name end rc=$?"
}

train() { # NAME SEED MIX PHASES [more finetune options]; then its evaluation (not for a repeat run)
    local name=$1 seed=$2 mix=$3 phases=$4
    shift 4
    log "$name start"
    $NEGKIT finetune "${COMMON[@]}" --train "$mix" --phases "$phases" --seed "$seed" --out "$work/runs/$name" "$@" \
        >"$work/logs/$name.log" 2>&1
    local rc=$?
    log "$name end rc=$rc"
    [ $rc -eq 0 ] && [[ $name != *-repeat ]] && evaluate "$name" --adapter "$work/runs/$name"
}

pack() { # the finished parts, as at most 4 gzipped tar files in RESULTS_DIR (written whole, then renamed)
    [ -n "$results" ] || return 0
    mkdir -p "$results"
    local group file
    (cd "$work" && find logs runs -maxdepth 2 \( -name negkit_training.json -o -name train_log.jsonl \
        -o -path "runs/recipe-s0/adapter_*" -o -path "logs/*" \) -type f | tar -czf "$results/.training.tgz" -T -
        [ $? -le 1 ]) && # 1: a log changed while it was read (a running job's); the archive is still whole
        mv "$results/.training.tgz" "$results/training.tgz"
    for group in "base recipe-s0 recipe-s1" "recipe-s2 no-extra-losses without-scone" "without-condaqa with-kl"; do
        file=evals-${group%% *}.tgz
        (cd "$work/runs" && tar -czf "$results/.$file" --exclude=report.html --exclude=requests.jsonl \
            $(for name in $group; do [ -d "eval-$name" ] && echo "eval-$name"; done) 2>/dev/null
            [ $? -le 1 ]) &&
            mv "$results/.$file" "$results/$file"
    done
}

# stopped (a time limit): keep what is finished
trap 'log "stopped"; pack; exit 124' TERM INT
log "start: steps $STEPS, device $DEVICE, jobs $JOBS"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv >"$work/logs/gpu.txt" 2>&1
# One small evaluation first: it converts the GGUF file once (the others then read the cache) and checks the setup.
$NEGKIT eval --model default --device "$DEVICE" --tasks neqa --limit 8 --no-progress --out "$work/runs/warm-up" \
    >"$work/logs/warm-up.log" 2>&1 || { log "warm-up failed"; pack; exit 1; }
log "warm-up done"

IFS='|' read -r no_scone_mix no_scone_phases <<<"$(without scone sick@scone)"
IFS='|' read -r no_condaqa_mix no_condaqa_phases <<<"$(without condaqa)"
PHASES="tind:affirmative;$FORMATS"
KL_PHASES="$PHASES,replay" # replay text is trained only through the KL term, beside the rest
start() { # NAME COMMAND...: in the background, at most JOBS at once
    wanted "$1" || return 0
    shift
    while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do sleep 1; done
    "$@" &
}
start base evaluate base
start recipe-s0 train recipe-s0 0 "$MIX" "$PHASES" "${LOSSES[@]}"
start recipe-s1 train recipe-s1 1 "$MIX" "$PHASES" "${LOSSES[@]}"
start recipe-s2 train recipe-s2 2 "$MIX" "$PHASES" "${LOSSES[@]}"
start no-extra-losses train no-extra-losses 0 "$MIX" "$PHASES"
start without-scone train without-scone 0 "$no_scone_mix" "$no_scone_phases" "${LOSSES[@]}"
start without-condaqa train without-condaqa 0 "$no_condaqa_mix" "$no_condaqa_phases" "${LOSSES[@]}"
start with-kl train with-kl 0 "$MIX,replay=800" "$KL_PHASES" "${LOSSES[@]}" --kl-weight 0.5
start recipe-s0-repeat train recipe-s0-repeat 0 "$MIX" "$PHASES" "${LOSSES[@]}"
while [ "$(jobs -rp | wc -l)" -gt 0 ]; do
    pack
    sleep "$PACK_EVERY" &
    wait $! # a signal is handled at once, not after the sleep
done
wait
log "all done"
pack
