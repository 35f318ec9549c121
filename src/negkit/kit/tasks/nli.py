"""NLI records: what an NLI task writes for each pair (:func:`nli_record`) and the items it rebuilds from a samples
file (:func:`items_from_records`, for ``negkit compare``); :class:`~negkit.kit.tasks.nli_declared.NLITask` asks and
scores a declared NLI benchmark with them."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from negkit.errors import InputFormatError
from negkit.kit.data.nli import NLI_LABELS, NLIItem
from negkit.kit.metrics.nli import NOT_ENTAILMENT
from negkit.kit.runs import need

#: The labels a samples file of an NLI task may hold (gold and predicted, as negkit eval writes them).
RECORD_LABELS: tuple[str, ...] = (*NLI_LABELS, NOT_ENTAILMENT)


def nli_record(item: NLIItem, prediction: str, extra: Mapping[str, Any]) -> dict[str, Any]:
    """An item's record: its texts, ``extra`` (answer words, scores), the prediction and the gold label."""
    record = {
        "item_id": item.item_id,
        "premise": item.premise,
        "hypothesis": item.hypothesis,
        **extra,
        "prediction": prediction,
        "gold": item.label,
    }
    # the unit intervals resample (premise; ScoNe base pair), so that runs can be compared from samples alone
    record.update({"premise_id": item.premise_id} if item.premise_id else {})
    record.update({"condition": item.condition, "row": item.row} if item.condition else {})
    return record


def items_from_records(
    records: Sequence[Mapping[str, Any]], path: Path, task: str, item_id_pattern: re.Pattern[str] | None = None
) -> list[NLIItem]:
    """The items of ``task`` as far as the headline estimands need them (gold label, premise, condition and row),
    from a samples file (a record without ``gold`` or ``prediction`` is an error naming its line); ``item_id_pattern``
    (groups ``condition`` and ``row``) reads those from the item ids of samples written without them."""
    items = []
    for number, record in enumerate(records, start=1):
        item_id = str(record["item_id"])
        condition, row = record.get("condition", ""), record.get("row", -1)
        match = item_id_pattern.match(item_id) if item_id_pattern is not None else None
        if match and row == -1:
            condition, row = match["condition"], int(match["row"])
        gold = str(need(record, "gold", path, number))
        prediction = need(record, "prediction", path, number)
        if gold not in RECORD_LABELS:
            raise InputFormatError(path, number, f"gold label {gold!r} is not one of {', '.join(RECORD_LABELS)}")
        if isinstance(prediction, str) and prediction not in RECORD_LABELS and prediction.lower() in RECORD_LABELS:
            raise InputFormatError(
                path,
                number,
                f"predicted label {prediction!r}: labels are written in lower "
                f"case ({prediction.lower()!r}); as written it would count as wrong",
            )
        items.append(
            NLIItem(
                item_id,
                "",
                "",
                gold,
                task,
                premise_id=str(record.get("premise_id", "")),
                condition=str(condition),
                row=int(row),
            )
        )
    return items
