"""Scorers for ``negkit score nubench|nan-nli|scone|condaqa`` (registered in :data:`negkit.scoring.SUITE_SCORERS`).

Each reads the gold data (``--data``, else the usual data roots), reads the predictions file (layout in
:mod:`negkit.data.suite_predictions`), and scores the predicted items with the suite's metrics. Items without a
prediction are left out; the metrics say how many were scored and how many the data set has.
"""

from __future__ import annotations

from pathlib import Path

from negkit.data.condaqa import read_condaqa
from negkit.data.locate import locate_dataset
from negkit.data.nli import read_nan_nli, read_scone
from negkit.data.nubench import MULTIPLE_CHOICE, SPLITS, load_choice_items
from negkit.data.suite_predictions import read_answer_predictions, read_choice_predictions, read_label_predictions
from negkit.errors import DataNotFoundError
from negkit.metrics.condaqa import canonical_answer, condaqa_report, is_correct
from negkit.metrics.condaqa_intervals import condaqa_estimands
from negkit.metrics.intervals import IntervalSettings, intervals_json
from negkit.metrics.mc_intervals import nubench_estimands
from negkit.metrics.nli import nan_nli_report, scone_accuracy
from negkit.metrics.nli_intervals import nan_nli_estimands, scone_estimands
from negkit.report.condaqa import condaqa_tables
from negkit.report.nli import nan_nli_tables, scone_tables
from negkit.report.nubench import nubench_tables
from negkit.scoring.base import SuiteScore
from negkit.tasks.multiple_choice import locate_nubench_root, nubench_metrics


def score_nubench(path: Path, name: str = "predictions", data: str | None = None,
                  intervals: IntervalSettings | None = IntervalSettings()) -> SuiteScore:
    """Thunder-NUBench acc, acc_norm and error analysis per run (mean and SD over runs)."""
    root = locate_nubench_root(data)
    if root is None:
        where = f"{data}: " if data else ""
        raise DataNotFoundError(f"{where}Thunder-NUBench data not found: pass --data ROOT (ROOT/multiple-choice/test.jsonl)")
    items = {}
    for split in SPLITS[MULTIPLE_CHOICE]:
        try:
            items.update({item.item_id: item for item in load_choice_items(split, root)})
        except DataNotFoundError:
            continue
    predictions = read_choice_predictions(path, items)
    runs = list(dict.fromkeys(prediction.run for prediction in predictions))
    records: dict[str, dict] = {}
    for prediction in predictions:
        item = items[prediction.item_id]
        record = records.setdefault(item.item_id, {"item_id": item.item_id, "choice2_type": item.choice2_type, "runs": {}})
        record["runs"][prediction.run] = {"prediction": prediction.prediction, "prediction_norm": prediction.prediction_norm}
    metrics = nubench_metrics(list(records.values()), runs) | {"source": f"{name} ({', '.join(runs)})"}
    if intervals is not None:
        metrics["intervals"] = intervals_json(nubench_estimands(list(records.values()), runs), intervals)
    return SuiteScore(metrics, nubench_tables(metrics))


def score_nan_nli(path: Path, name: str = "predictions", data: str | None = None,
                  intervals: IntervalSettings | None = IntervalSettings()) -> SuiteScore:
    """Every NaN-NLI setting and breakdown for the predicted pairs."""
    items = read_nan_nli(locate_dataset("nan-nli", data) / "nan.csv")
    predicted = read_label_predictions(path, "nan-nli", {item.item_id for item in items})
    chosen = [item for item in items if item.item_id in predicted]
    labels = [predicted[item.item_id] for item in chosen]
    metrics = nan_nli_report(chosen, labels) | {"data_count": len(items)}
    if intervals is not None:
        metrics["intervals"] = intervals_json(nan_nli_estimands(chosen, labels), intervals)
    return SuiteScore(metrics, nan_nli_tables(metrics))


def score_scone(path: Path, name: str = "predictions", data: str | None = None,
                intervals: IntervalSettings | None = IntervalSettings()) -> SuiteScore:
    """ScoNe accuracy per condition and overall for the predicted pairs (test split)."""
    items = read_scone(locate_dataset("scone", data), "test")
    predicted = read_label_predictions(path, "scone", {item.item_id for item in items})
    chosen = [item for item in items if item.item_id in predicted]
    labels = [predicted[item.item_id] for item in chosen]
    metrics = {"count": len(chosen), "data_count": len(items), "accuracy": scone_accuracy(chosen, labels)}
    if intervals is not None:
        metrics["intervals"] = intervals_json(scone_estimands(chosen, labels), intervals)
    return SuiteScore(metrics, scone_tables(metrics))


def score_condaqa(path: Path, name: str = "predictions", data: str | None = None,
                  intervals: IntervalSettings | None = IntervalSettings()) -> SuiteScore:
    """CondaQA accuracy and group consistency for the predicted questions (dev split)."""
    items = read_condaqa(locate_dataset("condaqa", data))
    predicted = read_answer_predictions(path, {item.item_id for item in items})
    chosen = [item for item in items if item.item_id in predicted]
    answers = [canonical_answer(predicted[item.item_id]) for item in chosen]
    metrics = condaqa_report(chosen, answers)
    metrics |= {"data_count": len(items), "source": name, "style": "predictions"}
    if intervals is not None:
        records = [{"passage_id": item.passage_id, "question_id": item.question_id, "edit": item.edit_name,
                    "correct": is_correct(item, answer)} for item, answer in zip(chosen, answers)]
        metrics["intervals"] = intervals_json(condaqa_estimands(records), intervals)
    return SuiteScore(metrics, condaqa_tables(metrics))
