"""NeQA (Inverse Scaling Prize; McKenzie et al., 2023): 300 negated two-option questions.

The prompt is the data's ``prompt`` as it is (it ends in ``Answer:``); each class (``" A"``, ``" B"``) is the
continuation exactly as written, with no target delimiter (the LM Evaluation Harness's ``inverse_scaling_neqa``:
``target_delimiter: ""``). ``acc`` takes the class with the highest log-likelihood, ``acc_norm`` the highest per
character. ``--chat`` makes the prompt the user message of the model's chat template. Reader:
:func:`negkit.data.neqa.read_neqa`; metrics: :mod:`negkit.metrics.neqa`; intervals resample questions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from negkit.data.locate import locate_dataset
from negkit.data.neqa import NEQA_FILE, NeQAItem, read_neqa
from negkit.data.predictions import field, read_predictions, string, whole_number
from negkit.errors import InputFormatError, NegkitError, quoted
from negkit.metrics.intervals import IntervalSettings, intervals_json
from negkit.metrics.multiple_choice import predict, predict_normalised
from negkit.metrics.neqa import neqa_estimands, neqa_report
from negkit.models.base import AnswerSpace, LoglikelihoodRequest, LoglikelihoodResult
from negkit.report import plots
from negkit.report.figures import triple
from negkit.report.neqa import neqa_tables
from negkit.report.run_records import need
from negkit.report.suite_view import Figure
from negkit.suites.description import DataSource, SuiteDescription, SuiteScore, TaskEntry
from negkit.suites.registry import register_suite
from negkit.tasks.base import TaskData, resolve_limit, wrap_prompt

NAME = "neqa"
#: NeQA's classes (every question of the release offers these two).
DEFAULT_CLASSES: tuple[str, ...] = (" A", " B")


class NeQATask:
    """All 300 NeQA questions (a single test set; ``limit`` keeps the first ones)."""

    name = NAME
    dataset = NAME
    model_kind = "language_model"
    accepts = frozenset({"chat", "system_instruction"})
    uses_seed = False
    splits: tuple[str, ...] = ("test",)

    def __init__(self, chat: bool = False, system_instruction: str | None = None) -> None:
        self.chat = bool(chat)
        self.system_instruction = system_instruction

    def config(self) -> dict[str, Any]:
        return {"task": self.name, "prompt": "{prompt}", "target_delimiter": "", "choices": "classes (as written)",
                "chat": self.chat, "system_instruction": self.system_instruction}

    def prompt_template(self, model: Any) -> str:
        return wrap_prompt("{prompt}", model, self.chat, self.system_instruction)

    def load(self, data: str | Path | None, split: str, limit: int | None, seed: int) -> TaskData:
        folder = locate_dataset(self.dataset, data)
        items = read_neqa(folder)
        total = len(items)
        limit = resolve_limit(limit, total)
        if limit is not None:
            items = items[:limit]
        selection = {"split": split, "limit": limit, "count": len(items), "items_in_split": total}
        return TaskData(items, [folder / NEQA_FILE], selection)

    def requests(self, items: Sequence[NeQAItem], model: Any = None) -> list[tuple[LoglikelihoodRequest, ...]]:
        if self.chat and model is None:
            raise NegkitError("the chat template needs the model")
        requests = []
        for item in items:
            context = wrap_prompt(item.prompt, model, self.chat, self.system_instruction)
            requests.append(tuple(LoglikelihoodRequest(context, choice) for choice in item.classes))
        return requests

    def records(self, items: Sequence[NeQAItem], responses: Sequence[Sequence[LoglikelihoodResult]]) -> list[dict[str, Any]]:
        records = []
        for item, answers in zip(items, responses):
            scores = [answer.logprob for answer in answers]
            records.append({"item_id": item.item_id, "question": item.prompt, "classes": list(item.classes),
                            "loglikelihoods": scores, "prediction": predict(scores),
                            "prediction_norm": predict_normalised(scores, list(item.classes)), "gold": item.answer_index})
        return records

    def answer_space(self, items: Sequence[NeQAItem]) -> AnswerSpace | None:
        """The classes by name (``A`` -> ``" A"``) and the gold class of every question, for the constant and majority
        baselines; None when the questions do not all offer the same classes."""
        offered = {item.classes for item in items} or {DEFAULT_CLASSES}
        if len(offered) != 1:
            return None
        classes = offered.pop()
        return AnswerSpace({choice.strip(): choice for choice in classes},
                           tuple(item.classes[item.answer_index].strip() for item in items))

    def metrics(self, items: Sequence[NeQAItem], records: Sequence[dict[str, Any]]) -> dict[str, Any]:
        return neqa_report(records)

    def intervals(self, items: Sequence[NeQAItem], records: Sequence[dict[str, Any]], settings: Any = None) -> dict[str, Any]:
        """95% intervals of acc, acc_norm and the answer shares, resampling questions (:mod:`negkit.metrics.neqa`)."""
        return intervals_json(neqa_estimands(records), settings)

    def tables(self, metrics: dict[str, Any]) -> str:
        return neqa_tables(metrics)


def _class_index(path: Path, line: int, item: NeQAItem, value: Any, name: str) -> int:
    """A predicted class: its 0-based index, or the class as written or stripped (``" A"``, ``"A"``)."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(item.classes):
        return value
    if isinstance(value, str):
        for index, choice in enumerate(item.classes):
            if value in (choice, choice.strip()):
                return index
    raise InputFormatError(path, line, f"field {name!r}: {quoted(value, 40)} is not one of the classes "
                                       f"{[choice.strip() for choice in item.classes]} or their index")


def read_class_predictions(path: str | Path, items: Mapping[str, NeQAItem]) -> dict[str, tuple[int, int | None]]:
    """NeQA predictions: item id -> (class index, ``acc_norm`` class index or None). Lines are ``{"item_id":
    "neqa-12", "prediction": "B"}`` (or ``{"index": 12, ...}``; the prediction a class or its 0-based index;
    optional ``prediction_norm``); ``negkit eval``'s ``neqa.samples.jsonl`` is read as well."""
    path = Path(path)

    def item_id_of(line: int, record: Mapping[str, Any]) -> str:
        if "item_id" not in record and "index" in record:
            return f"neqa-{whole_number(path, line, record, 'index')}"
        if "item_id" not in record:
            raise InputFormatError(path, line, "missing field 'item_id' (or 'index')")
        return string(path, line, record, "item_id")

    def classes_of(line: int, record: Mapping[str, Any]) -> tuple[int, int | None]:
        item = items.get(item_id_of(line, record))
        if item is None:
            return -1, None  # an unknown item: read_predictions names it
        norm = record.get("prediction_norm")
        return (_class_index(path, line, item, field(path, line, record, "prediction"), "prediction"),
                None if norm is None else _class_index(path, line, item, norm, "prediction_norm"))

    return read_predictions(path, set(items), item_id_of, classes_of)


def score_neqa(path: Path, name: str = "predictions", data: str | None = None,
               intervals: IntervalSettings | None = IntervalSettings()) -> SuiteScore:
    """acc (and acc_norm where every line gives it) for the predicted questions."""
    items = {item.item_id: item for item in read_neqa(locate_dataset(NAME, data))}
    predicted = read_class_predictions(path, items)
    records = [{"item_id": item_id, "classes": list(item.classes), "gold": item.answer_index,
                "prediction": predicted[item_id][0], "prediction_norm": predicted[item_id][1]}
               for item_id, item in items.items() if item_id in predicted]
    if any(record["prediction_norm"] is None for record in records):
        for record in records:
            record["prediction_norm"] = record["prediction"]
        norm_note = {"acc_norm_from": "prediction (no prediction_norm in the file)"}
    else:
        norm_note = {}
    metrics = neqa_report(records) | {"data_count": len(items), "source": name} | norm_note
    if intervals is not None:
        metrics["intervals"] = intervals_json(neqa_estimands(records), intervals)
    return SuiteScore(metrics, neqa_tables(metrics))


def neqa_figures(metrics: dict[str, Any], records: Sequence[dict[str, Any]] | None = None) -> list[Figure]:
    """acc and acc_norm, and which answer the model gave against which was right."""
    accuracy = plots.interval_bars(["acc", "acc_norm"], {"accuracy": [triple(metrics, "acc"), triple(metrics, "acc_norm")]},
                                   "NeQA accuracy", "accuracy", (0, 1), reference=0.5)
    names = list(metrics.get("choice_share", {}))
    shares = plots.interval_bars(names, {"model's answers": [triple(metrics, f"choice_share.{name}") for name in names],
                                         "right answers": [(metrics.get("gold_share", {}).get(name), None, None)
                                                           for name in names]},
                                 "NeQA: answers given and right", "share of questions", (0, 1))
    return [("Accuracy (95% intervals; dashed: chance)", accuracy), ("Answers given and right answers", shares)]


def _estimands(records: Sequence[dict[str, Any]], path: Path) -> list[Any]:
    fields = ("item_id", "classes", "gold", "prediction", "prediction_norm")
    return neqa_estimands([{name: need(record, name, path, number) for name in fields}
                           for number, record in enumerate(records, start=1)])


SUITE = register_suite(SuiteDescription(
    name=NAME,
    title="NeQA",
    tasks=(TaskEntry(NAME, NeQATask, "NeQA: negated two-option questions, each class scored as a continuation "
                     "(Inverse Scaling Prize)"),),
    main_task=NAME,
    data=DataSource(NAME, "github joey234/llm-neg-bench prompts/neqa.csv into DATA/neqa/ (or the hub data set "
                    "inverse-scaling/NeQA)", licence="CC BY-SA 4.0 (the hub card of inverse-scaling/NeQA; the "
                    "repository has no licence file)"),
    reader=read_neqa,
    metrics=neqa_report,
    scorer=score_neqa,
    scorer_help="NeQA: acc (and acc_norm) from {item_id or index, prediction (A/B or 0/1)[, prediction_norm]} lines",
    interval_unit="question",
    primary_metric="acc",
    figures=neqa_figures,
    record_estimands=_estimands,
    order=70,
))
