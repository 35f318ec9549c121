"""Predictions files made elsewhere, for ``negkit score SUITE FILE``: the reading every suite shares.

JSON Lines, one object per predicted item, naming the item by ``item_id`` (or by fields a suite reads itself,
e.g. a row number) and giving ``prediction``. Every line is checked; a bad one raises
:class:`~negkit.errors.InputFormatError` with its line number. An item predicted twice, an unknown item and an
empty file are errors. Each suite documents its own layout (its suite module's ``scorer_help``); the readers of
layouts several suites share are here: :func:`read_predictions` (item id -> value),
:func:`read_label_predictions` (NLI label names) and :func:`read_choice_predictions` (multiple choice, with runs).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from negkit.errors import InputFormatError, quoted
from negkit.io.textfiles import iter_json_objects, require_fields
from negkit.kit.data.nli import NLI_LABELS

#: ``(path, line, record) -> item id`` for a line without ``item_id`` (None: the line must have one).
ItemIdReader = Callable[[Path, int, Mapping[str, Any]], "str | None"]
#: The run of a prediction without a ``run`` field.
DEFAULT_RUN = "predictions"


@dataclass(frozen=True)
class ChoicePrediction:
    """One multiple-choice prediction: the predicted choice names for acc and acc_norm (None when absent)."""

    item_id: str
    run: str
    prediction: str
    prediction_norm: str | None


def field(path: Path, line: int, record: Mapping[str, Any], name: str) -> Any:
    """``record[name]``; a missing field is an error naming it."""
    require_fields(path, line, record, (name,))
    return record[name]


def whole_number(path: Path, line: int, record: Mapping[str, Any], name: str) -> int:
    """A field holding a whole number (``3`` or ``3.0``; never ``3.7``, ``"3"`` or ``true``)."""
    value = field(path, line, record, name)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputFormatError(path, line, f"field {name!r}: expected a whole number, found {quoted(value)}")
    number: int = value
    return number


def is_number(value: Any) -> bool:
    """Whether a field's value is a number a score may be: an int or float, not a boolean, not NaN."""
    return not isinstance(value, bool) and isinstance(value, (int, float)) and not math.isnan(value)


def string(path: Path, line: int, record: Mapping[str, Any], name: str) -> str:
    """A field holding a string."""
    value = field(path, line, record, name)
    if not isinstance(value, str):
        raise InputFormatError(path, line, f"field {name!r}: expected a string, found {quoted(value)}")
    return value


def item_id(
    path: Path, line: int, record: Mapping[str, Any], positional: ItemIdReader | None = None, alternatives: str = ""
) -> str:
    """The item a line names: ``item_id``, else what ``positional`` reads from the suite's own fields; the error
    for neither names the ``alternatives`` (e.g. ``" (or 'index')"``)."""
    if "item_id" in record:
        return string(path, line, record, "item_id")
    found = positional(path, line, record) if positional is not None else None
    if found is not None:
        return found
    raise InputFormatError(path, line, f"missing field 'item_id'{alternatives}")


def read_predictions(
    path: str | Path,
    item_ids: set[str],
    item_id_of: Callable[[int, Mapping[str, Any]], str],
    value_of: Callable[[int, Mapping[str, Any]], Any],
) -> dict[str, Any]:
    """item id -> value for each line (``item_id_of(line, record)``, ``value_of(line, record)``); an unknown item,
    an item predicted twice and an empty file are errors."""
    path = Path(path)
    predictions: dict[str, Any] = {}
    for line, record in iter_json_objects(path):
        name = item_id_of(line, record)
        if name not in item_ids:
            raise InputFormatError(path, line, f"unknown item {quoted(name)}")
        if name in predictions:
            raise InputFormatError(path, line, f"item {name!r} predicted twice")
        predictions[name] = value_of(line, record)
    if not predictions:
        raise InputFormatError(path, None, "no predictions")
    return predictions


def read_label_predictions(
    path: str | Path,
    item_ids: set[str],
    positional: ItemIdReader | None = None,
    alternatives: str = "",
    words: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """NLI predictions: item id -> predicted label (``entailment``, ``neutral``, ``contradiction``,
    case-insensitive; ``words`` maps other answers onto labels, e.g. ``yes`` -> entailment)."""
    path = Path(path)

    def label_of(line: int, record: Mapping[str, Any]) -> str:
        value = field(path, line, record, "prediction")
        if not isinstance(value, str):
            raise InputFormatError(path, line, f"field 'prediction': expected a label name, found {quoted(value)}")
        label = value.strip().lower()
        label = (words or {}).get(label, label)
        if label not in NLI_LABELS:
            raise InputFormatError(path, line, f"field 'prediction': {quoted(value)} is not an NLI label {NLI_LABELS}")
        return label

    return read_predictions(
        path, item_ids, lambda line, record: item_id(path, line, record, positional, alternatives), label_of
    )


def _choice_name(path: Path, line: int, item: Any, value: Any, name: str) -> str:
    if isinstance(value, bool):
        raise InputFormatError(path, line, f"field {name!r}: {value!r} is not a choice")
    if isinstance(value, int):
        if not 0 <= value < len(item.candidate_names):
            raise InputFormatError(
                path, line, f"field {name!r}: {value} is out of range for {len(item.candidate_names)} candidates"
            )
        candidate: str = item.candidate_names[value]
        return candidate
    if isinstance(value, str) and value in item.candidate_names:
        return value
    raise InputFormatError(
        path, line, f"field {name!r}: {quoted(value)} is not one of {list(item.candidate_names)} or an index"
    )


def _expand_runs(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Lines as given, or one line per run for ``negkit eval`` sample records (``{"item_id", "runs": {...}}``)."""
    for line, record in iter_json_objects(path):
        runs = record.get("runs")
        if isinstance(runs, dict) and "prediction" not in record:
            for run, values in runs.items():
                if not isinstance(values, dict):
                    raise InputFormatError(path, line, f"field 'runs': run {quoted(run)} is not an object")
                yield line, {**({"item_id": record["item_id"]} if "item_id" in record else {}), "run": run, **values}
        else:
            yield line, record


def read_choice_predictions(
    path: str | Path, items: Mapping[str, Any], positional: ItemIdReader | None = None, alternatives: str = ""
) -> list[ChoicePrediction]:
    """Multiple-choice predictions; ``items`` maps item ids to items (their ``candidate_names`` check and name the
    choices). ``prediction`` is the 0-based position among the candidates offered or a candidate's name;
    optional: ``prediction_norm`` (the ``acc_norm`` prediction, same forms) and ``run`` (several runs are
    reported as mean and SD). ``negkit eval``'s own samples file is read too (its ``runs`` are expanded)."""
    path = Path(path)
    predictions: list[ChoicePrediction] = []
    seen: set[tuple[str, str]] = set()
    for line, record in _expand_runs(path):
        name = item_id(path, line, record, positional, alternatives)
        item = items.get(name)
        if item is None:
            raise InputFormatError(path, line, f"unknown item {quoted(name)}")
        run = record.get("run", DEFAULT_RUN)
        if isinstance(run, bool) or not isinstance(run, (str, int)):
            raise InputFormatError(path, line, f"field 'run': expected a run name, found {quoted(run)}")
        run = str(run)
        if (item.item_id, run) in seen:
            raise InputFormatError(path, line, f"item {item.item_id!r} predicted twice in run {quoted(run)}")
        seen.add((item.item_id, run))
        choice = _choice_name(path, line, item, field(path, line, record, "prediction"), "prediction")
        norm = record.get("prediction_norm")
        norm_name = None if norm is None else _choice_name(path, line, item, norm, "prediction_norm")
        predictions.append(ChoicePrediction(item.item_id, run, choice, norm_name))
    if not predictions:
        raise InputFormatError(path, None, "no predictions")
    return predictions
