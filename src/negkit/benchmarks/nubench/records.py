"""Thunder-NUBench's per-item records and the one path from them to numbers (:mod:`negkit.kit.scoring`).

A record holds an item's texts and, per run (``zero-shot``, ``seed-N``, or a sweep's ``PROMPT/RUN``), the ``acc``
and ``acc_norm`` predictions as choice names (``choice1`` is always right). From records alone come the runs they
hold, the items as far as the estimands need them (``negkit compare``) and the Harness's per-item scores; a
predictions file made elsewhere is read into records of the same shape (``negkit score``): lines ``{"item_id":
"nubench-test-12", "prediction": 0}`` (``item_id`` is ``nubench-SPLIT-INDEX``; ``{"index": 12}`` alone means the
test split; a prediction is a 0-based position among the candidates offered or a name ``choice1``..``choice4``;
optional ``prediction_norm`` and ``run``), or ``negkit eval``'s samples file.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from negkit.benchmarks.nubench.data import MULTIPLE_CHOICE, SPLITS, ChoiceItem, load_choice_items, locate_nubench_root
from negkit.errors import DataNotFoundError
from negkit.kit.data.predictions import read_choice_predictions, whole_number
from negkit.kit.runs import need

GOLD = "choice1"


def item_record(item: ChoiceItem, runs: dict[str, Any]) -> dict[str, Any]:
    """An item's record with the answers of each run (``runs``: run name -> ``prediction``, ``prediction_norm``,
    ...)."""
    return {"item_id": item.item_id, "sentence": item.sentence, "choice2_type": item.choice2_type,
            "candidates": list(item.candidate_names), "choices": list(item.candidates), "gold": GOLD, "runs": runs}


def record_runs(records: Sequence[Mapping[str, Any]]) -> list[str]:
    """The runs the records hold, in order of first appearance."""
    return list(dict.fromkeys(run for record in records for run in record.get("runs", {})))


def items_from_records(records: Sequence[Mapping[str, Any]], path: Path) -> list[ChoiceItem]:
    """The items as far as the estimands need them (id and local-negation type; the answers stay in the records)."""
    items = []
    for number, record in enumerate(records, start=1):
        need(record, "runs", path, number)
        items.append(ChoiceItem(str(record["item_id"]), -1, None, str(record.get("sentence", "")), ("", "", "", ""),
                                str(record.get("choice2_type", "")), ""))
    return items


def harness_scores(records: Sequence[Mapping[str, Any]]) -> dict[str, list[float]]:
    """Per item, ``acc`` (and ``acc_norm`` where every run has it): the item's mean over its runs."""
    acc, norm = [], []
    for record in records:
        runs = list(record["runs"].values())
        acc.append(statistics.fmean(float(run["prediction"] == record["gold"]) for run in runs))
        if all(run.get("prediction_norm") is not None for run in runs):
            norm.append(statistics.fmean(float(run["prediction_norm"] == record["gold"]) for run in runs))
    scores = {"acc": acc, **({"acc_norm": norm} if len(norm) == len(acc) else {})}
    return {name: values for name, values in scores.items() if values}


def scored_items(data: str | Path | None) -> list[ChoiceItem]:
    """The items a predictions file may name: every multiple-choice split found under the data root ``data``."""
    root = locate_nubench_root(data)
    if root is None:
        where = f"{data}: " if data else ""
        raise DataNotFoundError(f"{where}Thunder-NUBench data not found: pass --data ROOT (ROOT/multiple-choice/test.jsonl)")
    items: list[ChoiceItem] = []
    for split in SPLITS[MULTIPLE_CHOICE]:
        try:
            items += load_choice_items(split, root)
        except DataNotFoundError:
            continue
    return items


def _positional(path: Path, line: int, record: Mapping[str, Any]) -> str | None:
    return f"nubench-test-{whole_number(path, line, record, 'index')}" if "index" in record else None


def predicted_records(path: Path, items: Sequence[ChoiceItem]) -> list[dict[str, Any]]:
    """The records of a predictions file (see the module documentation), in the items' order."""
    runs: dict[str, dict[str, Any]] = {}
    for prediction in read_choice_predictions(path, {item.item_id: item for item in items}, _positional,
                                              " (or 'index')"):
        runs.setdefault(prediction.item_id, {})[prediction.run] = {"prediction": prediction.prediction,
                                                                   "prediction_norm": prediction.prediction_norm}
    return [item_record(item, runs[item.item_id]) for item in items if item.item_id in runs]


def scored_metrics(metrics: dict[str, Any], name: str) -> dict[str, Any]:
    """What ``negkit score`` reports: the metrics without the eval's prompt and shots (a predictions file says
    neither), with ``source``: the name and the runs."""
    kept = {key: value for key, value in metrics.items() if key not in ("prompt_id", "num_fewshot")}
    return kept | {"source": f"{name} ({', '.join(metrics.get('runs', {}))})"}
