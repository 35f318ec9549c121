"""The one path from records to numbers, checked end to end: a ``negkit eval`` run's samples file scored by
``negkit score`` gives the eval's own metrics and intervals, and ``negkit compare`` reads the run back."""

from __future__ import annotations

import json
from pathlib import Path

from negkit.cli import main

#: Keys ``negkit score`` adds to a task's metrics (where the numbers came from), and what a run adds (its sample).
NOT_METRICS = frozenset({"source", "data_count", "sample"})


def eval_then_score(capsys, out: Path, model: str, task: str, suite: str, data: Path | str, *extra: str,
                    bootstrap: int = 200) -> tuple[dict, dict]:
    """Run ``negkit eval`` then ``negkit score SUITE`` on its samples file; both metrics dictionaries, without the
    keys that say where they came from."""
    assert main(["eval", "--model", model, "--tasks", task, "--data", str(data), "--out", str(out), "--no-progress",
                 "--bootstrap", str(bootstrap), *extra]) == 0
    capsys.readouterr()
    evaluated = json.loads((out / f"{task}.results.json").read_text(encoding="utf-8"))["metrics"]
    assert main(["score", suite, str(out / f"{task}.samples.jsonl"), "--json", "--data", str(data),
                 "--bootstrap", str(bootstrap), "--seed", "0"]) == 0
    scored = json.loads(capsys.readouterr().out)
    return ({key: value for key, value in evaluated.items() if key not in NOT_METRICS},
            {key: value for key, value in scored.items() if key not in NOT_METRICS})


def compare_with_itself(capsys, run: Path, task: str) -> dict:
    """``negkit compare RUN RUN``: the task's comparison (the run against itself: every difference 0)."""
    assert main(["compare", str(run), str(run), "--baseline", str(run), "--json", "--bootstrap", "50"]) == 0
    comparison = json.loads(capsys.readouterr().out)
    return comparison["tasks"][task]
