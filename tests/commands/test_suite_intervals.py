"""Every suite's intervals: each interval's estimate is the metric printed at its path, with the right unit."""

from __future__ import annotations

import json
import random

import pytest
from conftest import NUBENCH_FIXTURE, shared_data_path
from tind_support import public_groups

from negkit.benchmarks.nan_nli.data import read_nan_nli
from negkit.benchmarks.nan_nli.intervals import nan_nli_estimands
from negkit.benchmarks.nan_nli.metrics import nan_nli_report
from negkit.benchmarks.nubench.intervals import nubench_estimands
from negkit.benchmarks.nubench.task import nubench_metrics
from negkit.benchmarks.scone.data import read_scone
from negkit.benchmarks.scone.intervals import scone_estimands
from negkit.benchmarks.scone.metrics import scone_accuracy
from negkit.benchmarks.tind.intervals import tind_estimands
from negkit.benchmarks.tind.metrics import tind_metrics
from negkit.kit.metrics.intervals import intervals_json

FIXTURE = NUBENCH_FIXTURE


def value_at(metrics: dict, path: str):
    for part in path.split("."):
        metrics = metrics[part]
    return metrics


def check_estimates(metrics: dict, intervals: dict, digits: int | None = None) -> None:
    for path, entry in intervals.items():
        expected = value_at(metrics, path)
        assert expected is not None, path
        estimate = round(entry["estimate"], digits) if digits is not None else entry["estimate"]
        assert estimate == pytest.approx(expected, abs=1e-6), path
        low, high = entry["ci"]
        if entry["units"] < 2 and not entry["method"].startswith("wilson"):
            assert low is None and high is None, path  # one unit: no interval
        else:
            assert low is not None and high is not None and low <= high, path


def test_tind_intervals_cover_every_table_cell_clustered_by_group():
    rng = random.Random(0)
    groups = [
        group for pattern in range(1, 12) for group in [g for g in public_groups() if g.pattern_id == pattern][:3]
    ]
    items = [item for group in groups for item in group.items]
    predictions = [rng.random() < 0.6 for _ in items]
    metrics = tind_metrics(items, predictions)
    intervals = intervals_json(tind_estimands(items, predictions))
    check_estimates(metrics, intervals, digits=2)
    headline = [path for path, entry in intervals.items() if entry["headline"]]
    assert len(headline) == 12 and "coherence_scores.All.Coherence_percentage" in headline
    assert intervals["all.accuracy"]["unit"] == "TIND group" and intervals["all.accuracy"]["units"] == len(groups)
    assert intervals["all.accuracy"]["rows"] == len(items)
    assert intervals["Synonymy1.coherence_scores.All.Coherence_percentage"]["units"] == 3
    assert "Negation_analysis.verbal_input.accuracy" in intervals
    # per pattern: all seven buckets that have sentences
    assert {"Synonymy1.all.accuracy", "Synonymy1.input_negation.accuracy"} <= set(intervals)


def test_nan_nli_intervals_are_clustered_by_premise():
    items = read_nan_nli(shared_data_path("nan-nli", "nan.csv"))
    rng = random.Random(1)
    predicted = [rng.choice(["entailment", "neutral", "contradiction", "neutral"]) for _ in items]
    metrics = json.loads(json.dumps(nan_nli_report(items, predicted)))
    intervals = intervals_json(nan_nli_estimands(items, predicted))
    check_estimates(metrics, intervals)
    assert intervals["standard.all_f1"]["unit"] == "NaN-NLI premise" and intervals["standard.all_f1"]["units"] == 48
    assert intervals["strict.accuracy"]["rows"] == 48
    assert {
        "binary.per_class.not_entailment.f1",
        "nan_quant.standard.all_f1",
        "confusion_matrix.neutral.entailment",
        "premise_negation_type.Verbal.f1",
        "hypothesis_negation_type.No negation.recall",
    } <= set(intervals)
    for table in (
        "construction_error_rate",
        "construction_error_rate_by_value",
        "operation_error_rate",
        "operation_error_rate_other",
    ):
        assert len([p for p in intervals if p.startswith(f"{table}.")]) == len(metrics[table]), table
    assert sorted(p for p, e in intervals.items() if e["headline"]) == [
        "binary.accuracy",
        "binary.all_f1",
        "standard.accuracy",
        "standard.all_f1",
        "strict.accuracy",
    ]


def test_scone_intervals_are_clustered_by_base_pair():
    items = [item for item in read_scone(shared_data_path("scone"), "test") if item.row < 30]
    rng = random.Random(2)
    predicted = [rng.choice(["entailment", "neutral"]) for _ in items]
    metrics = {"accuracy": scone_accuracy(items, predicted)}
    intervals = intervals_json(scone_estimands(items, predicted))
    check_estimates(metrics, intervals)
    assert intervals["accuracy.overall"]["units"] == 30 and intervals["accuracy.overall"]["rows"] == 180
    assert intervals["accuracy.two_scoped"]["rows"] == 30


def test_nubench_intervals_per_run_and_over_seeds():
    names = ["choice1", "choice2", "choice3", "choice4"]
    rng = random.Random(3)
    runs = ["seed-1", "seed-2"]
    records = [
        {
            "item_id": f"nubench-test-{i}",
            "choice2_type": rng.choice(["relative_part", "pp_part", "non-applicable"]),
            "runs": {run: {"prediction": rng.choice(names), "prediction_norm": rng.choice(names)} for run in runs},
        }
        for i in range(40)
    ]
    metrics = nubench_metrics(records, runs)
    intervals = intervals_json(nubench_estimands(records, runs))
    check_estimates(json.loads(json.dumps(metrics)), intervals)
    assert intervals["summary.acc.mean"]["headline"] and intervals["summary.acc.mean"]["units"] == 40
    assert "runs.seed-2.error_analysis.error_share_percent.choice2" in intervals
    assert "runs.seed-1.error_analysis.confusion_rate.pp_part" in intervals


def test_negkit_score_gives_intervals_and_tables_print_them(tmp_path, capsys):
    from negkit.cli import main

    items = read_scone(shared_data_path("scone"), "test")
    path = tmp_path / "scone.jsonl"
    path.write_text(
        "".join(
            json.dumps({"item_id": item.item_id, "prediction": "yes" if item.row % 3 else "no"}) + "\n"
            for item in items
        )
    )
    assert main(["score", "scone", str(path), "--json", "--bootstrap", "300", "--seed", "4"]) == 0
    metrics = json.loads(capsys.readouterr().out)
    entry = metrics["intervals"]["accuracy.overall"]
    assert (entry["resamples"], entry["seed"], entry["units"]) == (300, 4, 200)
    assert main(["score", "scone", str(path)]) == 0
    table = capsys.readouterr().out
    assert f"{metrics['accuracy']['overall']:.3f} [" in table and "Brackets: 95% confidence interval" in table
    assert main(["score", "scone", str(path), "--json", "--bootstrap", "0"]) == 0
    assert "intervals" not in json.loads(capsys.readouterr().out)


def test_condaqa_intervals_are_clustered_by_passage():
    from negkit.benchmarks.condaqa.data import read_condaqa
    from negkit.benchmarks.condaqa.intervals import condaqa_estimands
    from negkit.benchmarks.condaqa.metrics import condaqa_report, is_correct

    items = read_condaqa(shared_data_path("condaqa"))[:400]
    rng = random.Random(5)
    answers = [rng.choice(["yes", "no", "dont know"]) for _ in items]
    metrics = condaqa_report(items, answers)
    records = [
        {
            "passage_id": item.passage_id,
            "question_id": item.question_id,
            "edit": item.edit_name,
            "correct": is_correct(item, answer),
        }
        for item, answer in zip(items, answers)
    ]
    intervals = intervals_json(condaqa_estimands(records))
    check_estimates(metrics, intervals)
    assert intervals["accuracy.accuracy"]["units"] == len({item.passage_id for item in items})
    assert intervals["consistency.all.accuracy"]["rows"] == metrics["groups"]
    assert sorted(p for p, e in intervals.items() if e["headline"]) == ["accuracy.accuracy", "consistency.all.accuracy"]
