"""Predictions files made elsewhere, for ``negkit score nubench|nan-nli|scone|condaqa``.

JSON Lines, one object per predicted item:

- Thunder-NUBench: ``{"item_id": "nubench-test-12", "prediction": 0}``. ``item_id`` is ``nubench-SPLIT-INDEX``
  (``INDEX`` is the data set's ``index`` field; ``{"index": 12}`` alone means the test split). ``prediction`` is the
  0-based position among the candidates offered (choice1, choice2, choice3, choice4; for ``non-applicable`` items
  choice1, choice3, choice4) or a choice name ``"choice1"``..``"choice4"``. Optional: ``prediction_norm`` (the
  ``acc_norm`` prediction, same forms) and ``run`` (e.g. ``"seed-42"``; several runs are reported as mean and SD).
- NaN-NLI: ``{"item_id": "nan-017", "prediction": "entailment"}`` (or ``{"index": 17}``, the 0-based data row).
- ScoNe: ``{"item_id": "scone-test-one_scoped-0003", "prediction": "neutral"}`` (or ``{"condition": "one_scoped",
  "row": 3}``). ``yes``/``no`` are read as entailment/neutral and ``contradiction`` counts as neutral.

- CondaQA: ``{"item_id": "condaqa-5294", "prediction": "yes"}`` (or ``{"SampleID": 5294}``); the prediction is the
  model's answer as text (read like a written answer: its first line, normalised; a leading yes / no or a "don't
  know" phrase counts as that answer). ``negkit eval``'s ``condaqa.samples.jsonl`` is read as well.

NLI predictions are label names (``entailment``, ``neutral``, ``contradiction``, case-insensitive). Every line is
checked; a bad one raises :class:`~negkit.errors.InputFormatError` with its line number. An item predicted twice
(in the same run) is an error.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from negkit.data.nli import NLI_LABELS
from negkit.data.nubench import ChoiceItem, json_objects
from negkit.errors import InputFormatError, quoted

DEFAULT_RUN = "predictions"
_SCONE_WORDS = {"yes": "entailment", "no": "neutral", "contradiction": "neutral"}


@dataclass(frozen=True)
class ChoicePrediction:
    """One multiple-choice prediction: the predicted choice names for acc and acc_norm (None when absent)."""

    item_id: str
    run: str
    prediction: str
    prediction_norm: str | None


def _json_lines(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    yield from json_objects(path)


def _field(path: Path, line: int, record: Mapping[str, Any], name: str) -> Any:
    if name not in record:
        raise InputFormatError(path, line, f"missing field {name!r}")
    return record[name]


def _whole_number(path: Path, line: int, record: Mapping[str, Any], name: str) -> int:
    """A field holding a whole number (``3`` or ``3.0``; never ``3.7``, ``"3"`` or ``true``)."""
    value = _field(path, line, record, name)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputFormatError(path, line, f"field {name!r}: expected a whole number, found {quoted(value)}")
    return value


def _string(path: Path, line: int, record: Mapping[str, Any], name: str) -> str:
    value = _field(path, line, record, name)
    if not isinstance(value, str):
        raise InputFormatError(path, line, f"field {name!r}: expected a string, found {quoted(value)}")
    return value


def _item_id(path: Path, line: int, record: Mapping[str, Any], suite: str) -> str:
    """The item id a line names: ``item_id``, or the suite's positional fields (see the module documentation)."""
    if "item_id" in record:
        return _string(path, line, record, "item_id")
    if suite == "nubench" and "index" in record:
        return f"nubench-test-{_whole_number(path, line, record, 'index')}"
    if suite == "nan-nli" and "index" in record:
        return f"nan-{_whole_number(path, line, record, 'index'):03d}"
    if suite == "scone" and "condition" in record and "row" in record:
        return f"scone-test-{_string(path, line, record, 'condition')}-{_whole_number(path, line, record, 'row'):04d}"
    alternatives = {"nubench": " (or 'index')", "nan-nli": " (or 'index')", "scone": " (or 'condition' and 'row')"}
    raise InputFormatError(path, line, f"missing field 'item_id'{alternatives.get(suite, '')}")


def _choice_name(path: Path, line: int, item: ChoiceItem, value: Any, field: str) -> str:
    if isinstance(value, bool):
        raise InputFormatError(path, line, f"field {field!r}: {value!r} is not a choice")
    if isinstance(value, int):
        if not 0 <= value < len(item.candidate_names):
            raise InputFormatError(path, line, f"field {field!r}: {value} is out of range for {len(item.candidate_names)} candidates")
        return item.candidate_names[value]
    if isinstance(value, str) and value in item.candidate_names:
        return value
    raise InputFormatError(path, line, f"field {field!r}: {quoted(value)} is not one of {list(item.candidate_names)} or an index")


def _expand_runs(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Lines as given, or one line per run for ``negkit eval`` sample records (``{"item_id", "runs": {...}}``)."""
    for line, record in _json_lines(path):
        runs = record.get("runs")
        if isinstance(runs, dict) and "prediction" not in record:
            for run, values in runs.items():
                if not isinstance(values, dict):
                    raise InputFormatError(path, line, f"field 'runs': run {quoted(run)} is not an object")
                yield line, {**({"item_id": record["item_id"]} if "item_id" in record else {}), "run": run, **values}
        else:
            yield line, record


def read_choice_predictions(path: str | Path, items: Mapping[str, ChoiceItem]) -> list[ChoicePrediction]:
    """Read Thunder-NUBench predictions; ``items`` maps item ids to items (to check and name the choices).

    ``negkit eval``'s own ``nubench.samples.jsonl`` is read too (its ``runs`` are expanded)."""
    path = Path(path)
    predictions: list[ChoicePrediction] = []
    seen: set[tuple[str, str]] = set()
    for line, record in _expand_runs(path):
        item_id = _item_id(path, line, record, "nubench")
        item = items.get(item_id)
        if item is None:
            raise InputFormatError(path, line, f"unknown item {quoted(item_id)}")
        run = record.get("run", DEFAULT_RUN)
        if isinstance(run, bool) or not isinstance(run, (str, int)):
            raise InputFormatError(path, line, f"field 'run': expected a run name, found {quoted(run)}")
        run = str(run)
        if (item.item_id, run) in seen:
            raise InputFormatError(path, line, f"item {item.item_id!r} predicted twice in run {quoted(run)}")
        seen.add((item.item_id, run))
        name = _choice_name(path, line, item, _field(path, line, record, "prediction"), "prediction")
        norm = record.get("prediction_norm")
        norm_name = None if norm is None else _choice_name(path, line, item, norm, "prediction_norm")
        predictions.append(ChoicePrediction(item.item_id, run, name, norm_name))
    if not predictions:
        raise InputFormatError(path, None, "no predictions")
    return predictions


def _predictions(path: Path, item_ids: set[str], item_id_of: Any, value_of: Any) -> dict[str, Any]:
    """item id -> value for each line (``item_id_of(line, record)``, ``value_of(line, record)``); an unknown item, an
    item predicted twice and an empty file are errors."""
    predictions: dict[str, Any] = {}
    for line, record in _json_lines(path):
        item_id = item_id_of(line, record)
        if item_id not in item_ids:
            raise InputFormatError(path, line, f"unknown item {quoted(item_id)}")
        if item_id in predictions:
            raise InputFormatError(path, line, f"item {item_id!r} predicted twice")
        predictions[item_id] = value_of(line, record)
    if not predictions:
        raise InputFormatError(path, None, "no predictions")
    return predictions


def read_label_predictions(path: str | Path, suite: str, item_ids: set[str]) -> dict[str, str]:
    """Read NaN-NLI (``suite="nan-nli"``) or ScoNe (``"scone"``) predictions: item id -> predicted label."""
    path = Path(path)

    def label_of(line: int, record: Mapping[str, Any]) -> str:
        value = _field(path, line, record, "prediction")
        if not isinstance(value, str):
            raise InputFormatError(path, line, f"field 'prediction': expected a label name, found {quoted(value)}")
        label = value.strip().lower()
        if suite == "scone":
            label = _SCONE_WORDS.get(label, label)
        if label not in NLI_LABELS:
            raise InputFormatError(path, line, f"field 'prediction': {quoted(value)} is not an NLI label {NLI_LABELS}")
        return label

    return _predictions(path, item_ids, lambda line, record: _item_id(path, line, record, suite), label_of)


def read_answer_predictions(path: str | Path, item_ids: set[str]) -> dict[str, str]:
    """Read CondaQA predictions: item id -> the answer text as given (scoring normalises it)."""
    path = Path(path)

    def item_id_of(line: int, record: Mapping[str, Any]) -> str:
        if "item_id" not in record and "SampleID" in record:
            sample = record["SampleID"]
            if isinstance(sample, bool) or not isinstance(sample, (int, str)) or not str(sample).strip().isdigit():
                raise InputFormatError(path, line, f"field 'SampleID': expected an integer, found {quoted(sample, 40)}")
            return f"condaqa-{int(sample)}"
        if "item_id" not in record:
            raise InputFormatError(path, line, "missing field 'item_id' (or 'SampleID')")
        return _string(path, line, record, "item_id")

    def answer_of(line: int, record: Mapping[str, Any]) -> str:
        value = _field(path, line, record, "prediction")
        if not isinstance(value, str):
            raise InputFormatError(path, line, f"field 'prediction': expected the answer as text, found {quoted(value, 40)}")
        return value

    return _predictions(path, item_ids, item_id_of, answer_of)
