#!/usr/bin/env bash
# The data the main job needs (scripts/main.sh calls this after setup): every suite `negkit eval` runs by default
# whose data is not found (--data, NEGKIT_DATA, the cache, ./data, ../shared/data) is downloaded into NEGKIT_DATA,
# else the cache (~/.cache/negkit/data), pinned and checked by SHA-256; each data set's size and licence are printed
# first. With ../shared/data beside the checkout nothing is downloaded. Behind a firewall: NEGKIT_DATA_MIRROR=URL.
#
#   bash scripts/get_data.sh
#   NEGKIT_DATA_MIRROR=http://mirror.example/negkit-data bash scripts/get_data.sh
set -euo pipefail
cd "$(dirname "$0")/.."
"${NEGKIT_PYTHON:-.venv/bin/python}" -m negkit data get --default
