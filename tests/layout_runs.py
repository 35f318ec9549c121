"""The run-folder layout fixture: ``negkit eval`` runs of every suite with the baseline pseudo-models, reduced to
what must not change when negkit's code moves (the layout and values of ``results.json``, ``TASK.results.json``
and ``TASK.samples.jsonl``).

The baseline models answer from a hash of the request (no torch, no floating-point sums that depend on the CPU),
so the runs give the same bytes on every machine. :func:`normalised_run` drops what legitimately differs
between two runs of the same command (dates, timings, the environment, absolute paths) and replaces every string
of a sample record by a short SHA-256 (TIND's sentences never reach the repository; a changed string still shows
as a changed value under its key).

Regenerate the committed fixture (only when a layout change is intended, said in docs/reproducibility.md)::

    python tests/layout_runs.py --write
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
FIXTURE = REPO_ROOT / "tests" / "fixtures" / "layout"
NUBENCH_FIXTURE = REPO_ROOT / "tests" / "fixtures" / "thunder_nubench"

#: Run name -> ``negkit eval`` arguments (``{data}``: the shared data root; ``{nubench}``: the Thunder-NUBench fixture).
RUNS: dict[str, list[str]] = {
    "tind-random": [
        "--model",
        "random",
        "--tasks",
        "tind,tind-fewshot,tind-generate",
        "--limit",
        "24",
        "--data",
        "{data}",
    ],
    "suites-random": [
        "--model",
        "random",
        "--tasks",
        "nan-nli,scone,negnli,condaqa,condaqa-choice,blimp-negation,neqa",
        "--limit",
        "16",
        "--data",
        "{data}",
    ],
    "nubench-random": [
        "--model",
        "random",
        "--tasks",
        "nubench,nubench-prompts,nubench-fewshot",
        "--limit",
        "6",
        "--data",
        "{nubench}",
        "--model-args",
        "seed=3",
    ],
    "constant": ["--model", "constant:entailment", "--tasks", "nan-nli", "--limit", "30", "--data", "{data}"],
    "majority": ["--model", "majority", "--tasks", "scone,neqa", "--limit", "30", "--data", "{data}"],
}

#: Keys whose values differ between two runs of the same command (dropped wherever they appear).
VOLATILE = frozenset(
    {
        "timings",
        "date_utc",
        "unix_time",
        "cwd",
        "environment",
        "argv",
        "date",
        "start_time",
        "end_time",
        "total_evaluation_time_seconds",
        "git_hash",
        "pretty_env_info",
        "transformers_version",
        "upper_git_hash",
        "lm_eval_version",
        "negkit_version",
        "version",
    }
)


def eval_arguments(name: str, data: Path, out: Path) -> list[str]:
    """The ``negkit eval`` arguments of the fixture run ``name``, writing into ``out``."""
    words = [word.format(data=data, nubench=NUBENCH_FIXTURE) for word in RUNS[name]]
    return ["eval", *words, "--out", str(out), "--no-progress"]


def _short(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _clean(value: Any, places: dict[str, str], hash_strings: bool) -> Any:
    if isinstance(value, dict):
        return {key: _clean(item, places, hash_strings) for key, item in value.items() if key not in VOLATILE}
    if isinstance(value, list):
        return [_clean(item, places, hash_strings) for item in value]
    if isinstance(value, str):
        for path, placeholder in places.items():
            value = value.replace(path, placeholder)
        return _short(value) if hash_strings else value
    return value


#: Sample files longer than this are kept as their first records and a digest of all of them.
HEAD = 40


def digest(value: Any) -> str:
    """A short SHA-256 of ``value`` as canonical JSON."""
    return _short(json.dumps(value, sort_keys=True, ensure_ascii=False))


def normalised_run(folder: Path, data: Path) -> dict[str, Any]:
    """``{file name: normalised content}`` for ``results.json`` and every ``TASK.results.json`` and
    ``TASK.samples.jsonl`` of the run folder ``folder``. ``results.json``'s copy of each task's results is kept as
    a digest (the task's own file is compared whole); a long samples file as its first records and a digest."""
    places = {
        str(folder.resolve()): "<OUT>",
        str(folder): "<OUT>",
        str(data.resolve()): "<DATA>",
        str(data): "<DATA>",
        str(NUBENCH_FIXTURE): "<NUBENCH>",
        str(REPO_ROOT): "<REPO>",
    }
    files: dict[str, Any] = {}
    for path in sorted(folder.glob("*.json")):
        content = _clean(json.loads(path.read_text(encoding="utf-8")), places, hash_strings=False)
        if path.name == "results.json" and isinstance(content.get("tasks"), list):
            content["tasks"] = [digest(task) for task in content["tasks"]]
        files[path.name] = content
    for path in sorted(folder.glob("*.samples.jsonl")):
        records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        records = [_clean(record, places, hash_strings=True) for record in records]
        if len(records) > HEAD:
            records = {"records": len(records), "digest": digest(records), "head": records[:3]}
        files[path.name] = records
    return files


def run_all(data: Path, work: Path) -> dict[str, dict[str, Any]]:
    """Every fixture run made with the negkit on ``sys.path``, normalised."""
    from negkit.cli import main

    runs = {}
    for name in RUNS:
        out = work / name
        status = main(eval_arguments(name, data, out))
        if status != 0:
            raise RuntimeError(f"fixture run {name} failed with exit status {status}")
        runs[name] = normalised_run(out, data)
    return runs


def write_fixture(data: Path, work: Path) -> None:
    """Write the normalised runs into ``tests/fixtures/layout/RUN.json``."""
    FIXTURE.mkdir(parents=True, exist_ok=True)
    for name, files in run_all(data, work).items():
        text = json.dumps(files, sort_keys=True, ensure_ascii=False, separators=(",", ":")) + "\n"
        (FIXTURE / f"{name}.json").write_text(text, encoding="utf-8")


if __name__ == "__main__":
    import os
    import tempfile

    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python tests/layout_runs.py --write")
    shared = Path(os.environ.get("NEGKIT_TEST_DATA", REPO_ROOT.parent / "shared" / "data"))
    with tempfile.TemporaryDirectory() as work:
        write_fixture(shared, Path(work))
