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

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from negkit.benchmarks.nubench.data import MULTIPLE_CHOICE, SPLITS, ChoiceItem, load_choice_items, locate_nubench_root
from negkit.errors import DataNotFoundError
from negkit.kit.data.predictions import whole_number
from negkit.kit.tasks.negation_choice import (
    GOLD,
    harness_scores,
    item_record,
    items_from_records,
    record_runs,
    scored_metrics,
)

__all__ = [
    "GOLD",
    "harness_scores",
    "item_record",
    "items_from_records",
    "positional_item_id",
    "record_runs",
    "scored_items",
    "scored_metrics",
]


def scored_items(data: str | Path | None) -> list[ChoiceItem]:
    """The items a predictions file may name: every multiple-choice split found under the data root ``data``."""
    root = locate_nubench_root(data)
    if root is None:
        where = f"{data}: " if data else ""
        raise DataNotFoundError(
            f"{where}Thunder-NUBench data not found: pass --data ROOT (ROOT/multiple-choice/test.jsonl)"
        )
    items: list[ChoiceItem] = []
    for split in SPLITS[MULTIPLE_CHOICE]:
        try:
            items += load_choice_items(split, root)
        except DataNotFoundError:
            continue
    return items


def positional_item_id(path: Path, line: int, record: Mapping[str, Any]) -> str | None:
    """The item a predictions line names by ``index`` alone: that index of the test split."""
    return f"nubench-test-{whole_number(path, line, record, 'index')}" if "index" in record else None
