"""The one path from records to numbers, checked through the commands (issue 25): ``negkit eval`` of a baseline
pseudo-model, then ``negkit score`` of the run's samples file, must give the eval's metrics and intervals exactly
(same bootstrap settings); ``negkit compare`` of the run against itself rebuilds the headline numbers from the
samples alone (the eval's values, no difference)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import pytest

from negkit.cli import main

BOOTSTRAP = ["--bootstrap", "200"]


def evaluate(out: Path, model: str, tasks: str, data: Path, extra: Sequence[str] = ()) -> Path:
    """``negkit eval --model MODEL --tasks TASKS`` into ``out`` (200 resamples, bootstrap seed 3)."""
    assert (
        main(
            [
                "eval",
                "--model",
                model,
                "--tasks",
                tasks,
                "--data",
                str(data),
                *BOOTSTRAP,
                "--bootstrap-seed",
                "3",
                "--out",
                str(out),
                "--no-progress",
                *extra,
            ]
        )
        == 0
    )
    return out


def eval_metrics(out: Path, task: str) -> dict[str, Any]:
    return json.loads((out / f"{task}.results.json").read_text(encoding="utf-8"))["metrics"]


def score(suite: str, samples: Path, data: Path, capsys: Any) -> dict[str, Any]:
    """``negkit score SUITE SAMPLES --json`` with the eval's bootstrap settings."""
    capsys.readouterr()
    assert main(["score", suite, str(samples), "--data", str(data), "--json", *BOOTSTRAP, "--seed", "3"]) == 0
    return json.loads(capsys.readouterr().out)


def assert_score_is_eval(
    out: Path,
    task: str,
    suite: str,
    data: Path,
    capsys: Any,
    score_only: Iterable[str] = ("data_count",),
    eval_only: Iterable[str] = (),
) -> dict[str, Any]:
    """``negkit score`` of the run's samples gives the eval's metrics and intervals: the same dictionaries but for
    the keys only ``negkit score`` reports (``score_only``: how many items the data has, the source) and those only
    the eval knows (``eval_only``: e.g. the prompt asked). Returns the eval's metrics."""
    metrics = eval_metrics(out, task)
    scored = score(suite, out / f"{task}.samples.jsonl", data, capsys)
    assert "intervals" in metrics and metrics["intervals"]
    assert set(score_only) <= set(scored)
    assert {key: value for key, value in scored.items() if key not in set(score_only)} == {
        key: value for key, value in metrics.items() if key not in set(eval_only)
    }
    return metrics


def value_at(metrics: dict[str, Any], path: str) -> Any:
    for part in path.split("."):
        metrics = metrics[part]
    return metrics


def assert_compares_with_itself(
    out: Path, task: str, capsys: Any, metrics: dict[str, Any] | None = None
) -> dict[str, Any]:
    """``negkit compare OUT OUT``: the task's headline numbers rebuilt from its samples (the eval's values when
    ``metrics`` is given) and every paired difference zero. Returns the task's comparison."""
    capsys.readouterr()
    assert main(["compare", str(out), str(out), "--tasks", task, "--json", "--bootstrap", "50"]) == 0
    comparison = json.loads(capsys.readouterr().out)["tasks"][task]
    assert comparison["metrics"], "no headline metric rebuilt from the samples"
    first, second = comparison["rows"]
    for path, entry in first["values"].items():
        assert second["values"][path]["estimate"] == entry["estimate"]
        if metrics is not None:
            assert entry["estimate"] == pytest.approx(value_at(metrics, path), abs=1e-12), path
    differences = first.get("vs_baseline") or second.get("vs_baseline")
    assert differences and all(entry["difference"] == 0 for entry in differences.values())
    return comparison
