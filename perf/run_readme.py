"""Run every README command and the Python example as a new user would: in a fresh ``git clone``, in order.

The clone is made from the checkout's HEAD into WORK/negkit, with the data folder linked beside it
(WORK/shared -> the data folder's parent), so that ``../shared/data`` resolves as the README assumes; ``negkit`` is
``PYTHON -m negkit`` with the clone's ``src`` first on the path. Commands labelled ``# needs ...`` (a GPU, the hub,
a server, the LM Evaluation Harness) are listed, not run; commands labelled ``# takes ...`` (the main job, the
long trainings) run only with ``--all``, and so do the commands that read what they write. Prints each command's
exit status and seconds, then a summary; exits 1 when a command that ran failed.

    python perf/run_readme.py --work DIR [--data ../shared/data] [--all]
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
import readme_commands as readme  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.splitlines()[0])
    parser.add_argument("--work", required=True, help="an empty folder outside the checkout")
    parser.add_argument("--data", default=str(readme.REPO.parent / "shared" / "data"), help="the data folder")
    parser.add_argument("--python", default=sys.executable, help="the Python with negkit's dependencies")
    parser.add_argument("--all", action="store_true", help="also run the commands labelled '# takes ...'")
    args = parser.parse_args()
    work = Path(args.work).resolve()
    if work.exists() and any(work.iterdir()):
        sys.exit(f"{work} is not empty")
    work.mkdir(parents=True, exist_ok=True)
    clone = work / "negkit"
    subprocess.run(["git", "clone", "--quiet", str(readme.REPO), str(clone)], check=True)
    (work / "shared").symlink_to(Path(args.data).resolve().parent)
    shims = work / "bin"
    shims.mkdir()
    (shims / "negkit").write_text(f'#!/bin/sh\nexec {shlex.quote(args.python)} -m negkit "$@"\n')
    (shims / "negkit").chmod(0o755)
    env = {**os.environ, "PATH": f"{shims}:{os.environ['PATH']}", "PYTHONPATH": str(clone / "src")}
    env.pop("NEGKIT_DATA", None)

    skipped: list[str] = []
    failed = ran = 0
    for command in readme.commands(clone / "README.md", clone / "docs" / "commands.md"):
        inputs = [word for word in readme.path_words(command) if word not in readme.outputs(command)]
        reason = (
            f"needs {command.needs}"
            if command.needs
            else "long (--all runs it)"
            if command.long and not args.all
            else "reads what a command not run writes"
            if any(readme.created_before(w, skipped) for w in inputs)
            else None
        )
        if reason:
            skipped += readme.outputs(command)
            print(f"--    line {command.line}: not run ({reason}): {command.text[:90]}", flush=True)
            continue
        started = time.perf_counter()
        done = subprocess.run(command.text, shell=True, cwd=clone, env=env, capture_output=True, text=True)
        seconds = time.perf_counter() - started
        expected = 1 if "exits 1" in command.comment else 0
        ok = done.returncode == expected
        ran += 1
        failed += not ok
        print(
            f"{'ok' if ok else 'FAIL':5} line {command.line}: exit {done.returncode}, {seconds:6.1f} s: "
            f"{command.text[:90]}",
            flush=True,
        )
        if not ok:
            print(done.stderr[-1500:], flush=True)
    [block] = [block for block in readme.read_blocks(clone / "README.md") if block.language == "python"]
    started = time.perf_counter()
    done = subprocess.run([args.python, "-c", block.text], cwd=clone, env=env, capture_output=True, text=True)
    print(
        f"{'ok' if done.returncode == 0 else 'FAIL':5} python block (line {block.line}): exit {done.returncode}, "
        f"{time.perf_counter() - started:6.1f} s\n{done.stdout[-1500:]}{done.stderr[-1500:]}",
        flush=True,
    )
    failed += done.returncode != 0
    print(f"\n{ran + 1} run ({ran} commands and the Python block), {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
