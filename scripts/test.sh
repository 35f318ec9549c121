#!/usr/bin/env bash
# Set up (scripts/setup.sh) and run the whole test suite. Fails when pytest collects no test (exit 5).
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh || exit 1
.venv/bin/python -m pytest -q "$@"
status=$?
if [ "$status" -eq 5 ]; then
    echo "test: pytest collected no tests; failing" >&2
    exit 1
fi
exit "$status"
