#!/usr/bin/env bash
# Set up (scripts/setup.sh), check the import contracts of pyproject.toml (import-linter: the layers of
# docs/architecture.md, no import circles, imports inside functions included), ruff (lint and format, the version
# pinned in pyproject's test extra), the types (mypy, configured in pyproject's [tool.mypy]: strict on the core
# layers and kit; it runs beside the test suite), and the whole test suite on two workers.
# Fails on a broken contract, a type error, and when pytest collects no test (exit 5).
set -uo pipefail
cd "$(dirname "$0")/.."
NEGKIT_SETUP_BYTECODE=later bash scripts/setup.sh || exit 1
# mypy (one process, about 25 s on a fresh clone) runs beside the bytecode compilation and the test suite, its report
# printed after them
mypy_report=$(mktemp)
.venv/bin/mypy > "$mypy_report" 2>&1 &
mypy_pid=$!
trap 'kill "$mypy_pid" 2>/dev/null; rm -f "$mypy_report"' EXIT  # an interrupted run leaves no mypy behind
bash scripts/compile_bytecode.sh
.venv/bin/lint-imports pyproject.toml || { echo "test: an import contract is broken (see above)" >&2; exit 1; }
.venv/bin/ruff check src tests perf scripts docs || { echo "test: ruff check found problems (see above)" >&2; exit 1; }
.venv/bin/ruff format --check src tests perf scripts docs \
    || { echo "test: files not in ruff's format (run: .venv/bin/ruff format src tests perf scripts docs)" >&2; exit 1; }
# two workers (pytest-xdist): each test runs in one of them; NEGKIT_TEST_WORKERS=0 runs in this process alone.
# Python may keep bytecode here (PYTHONDONTWRITEBYTECODE unset, caches in git-ignored __pycache__ folders): the
# hundreds of child processes the tests start would otherwise compile negkit's modules from source each time.
env -u PYTHONDONTWRITEBYTECODE .venv/bin/python -m pytest -q -n "${NEGKIT_TEST_WORKERS:-2}" "$@"
status=$?
wait "$mypy_pid"
mypy_status=$?
cat "$mypy_report"
if [ "$status" -eq 5 ]; then
    echo "test: pytest collected no tests; failing" >&2
    exit 1
fi
if [ "$mypy_status" -ne 0 ]; then
    echo "test: mypy found type errors (see above)" >&2
    [ "$status" -eq 0 ] && exit 1
fi
exit "$status"
