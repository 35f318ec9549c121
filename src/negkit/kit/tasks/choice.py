"""Multiple choice by log-likelihood, declared: a benchmark whose items are a prompt, a few answers and the right one
states how it is asked in a :class:`MultipleChoice` and gets everything else from here.

Each answer is scored as the continuation ``target_delimiter + answer`` of the prompt (the LM Evaluation Harness's
``multiple_choice``); ``acc`` takes the arg-max, ``acc_norm`` (where declared) the arg-max per character of the
answer. From the declaration come the task (:class:`ChoiceTask`: requests, per-sample records, metrics, the
estimands the intervals resample, tables, the records of a predictions file made elsewhere, the baselines' answer
space), its figures and its Harness export, and with :func:`declared_suite` the whole suite description: one path
from records to numbers for ``negkit eval``, ``negkit score`` and ``negkit compare``.

Metrics (:func:`choice_metrics`): ``count``, ``correct``, ``acc`` (and ``acc_norm``), and where every question offers
the same answers, the share of the model's answers and of the right answers per answer (``choice_share.NAME``,
``gold_share.NAME``); with a declared ``group_field`` (a field of the questions' ``fields``, e.g. a negation rule)
also the accuracy per group (``GROUPS_KEY.NAME.acc``). Intervals resample each question's ``unit`` (the question
itself unless the reader names one, e.g. the passage several questions share).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from negkit.errors import InputFormatError, NegkitError, quoted
from negkit.io.atomic import atomic_write_jsonl, atomic_write_text
from negkit.kit.data.locate import locate_dataset
from negkit.kit.data.predictions import field as record_field
from negkit.kit.data.predictions import read_predictions, string, whole_number
from negkit.kit.harness.layout import harness_loader, harness_task_name, harness_task_yaml
from negkit.kit.metrics.choice import predict, predict_normalised
from negkit.kit.metrics.intervals import Estimand, ratio_estimand
from negkit.kit.render import plots
from negkit.kit.render.figures import triple
from negkit.kit.render.markdown import interval_note, markdown_table, number, with_interval
from negkit.kit.runs import need
from negkit.kit.tasks.base import TaskData, check_unique_ids, first_per_group, resolve_limit, wrap_prompt
from negkit.kit.tasks.declared import DeclaredTask, own_field
from negkit.kit.view import Figure
from negkit.models.base import AnswerSpace, LoglikelihoodRequest


@dataclass(frozen=True)
class ChoiceQuestion:
    """One question: its id, the prompt, the answers offered and the index of the right one."""

    item_id: str
    prompt: str
    choices: tuple[str, ...]
    gold: int
    #: The unit the intervals resample (None: the item itself), e.g. the passage several questions share.
    unit: str | None = None
    #: Anything else to keep in the per-sample records (JSON-ready).
    fields: dict[str, Any] = field(default_factory=dict)


#: ``read(folder, split) -> questions``.
ChoiceReader = Callable[[Path, str], list[ChoiceQuestion]]


@dataclass(frozen=True)
class MultipleChoice(DeclaredTask[ChoiceQuestion]):
    """How a multiple-choice benchmark is asked (see the module documentation).

    ``read(folder, split)`` gives the questions of a split from the data set folder and ``files(folder, split)``
    the files it read (their hashes go into the results; default: the reader's own ``files``, as a
    :func:`negkit.kit.data.rows.rows_reader` has); ``dataset`` is the folder's name under a data root
    (default: ``name``). ``harness_task`` names the exported Harness task (default: ``negkit_`` + the name)."""

    target_delimiter: str = " "
    acc_norm: bool = False
    #: What the intervals resample, in words (``question``; ``NeQA question``).
    unit: str = own_field("question")
    splits: tuple[str, ...] = ("test",)
    harness_task: str = ""
    #: Facts about the protocol for the results' ``task`` entry.
    protocol: Mapping[str, Any] = field(default_factory=dict, hash=False)
    #: A field of the questions' ``fields`` whose values group them (accuracy per group; ``--limit N`` keeps the
    #: first ``ceil(N / groups)`` of each); ``groups`` orders them.
    group_field: str = own_field("")
    #: One line for ``negkit eval --list`` (default: ``TITLE: multiple choice by log-likelihood``).
    description: str = ""

    def task(self, chat: bool = False, system_instruction: str | None = None) -> ChoiceTask:
        """The task, asked with the model's chat template when ``chat`` (the ``TaskEntry`` factory)."""
        return ChoiceTask(self, chat, system_instruction)

    @property
    def harness_name(self) -> str:
        return self.harness_task or harness_task_name(self.name)


class ChoiceTask:
    """A :class:`MultipleChoice` benchmark asked one way (plain prompt or chat template)."""

    model_kind = "language_model"
    accepts = frozenset({"chat", "system_instruction"})
    uses_seed = False

    def __init__(self, spec: MultipleChoice, chat: bool = False, system_instruction: str | None = None) -> None:
        self.spec, self.chat, self.system_instruction = spec, bool(chat), system_instruction
        self.name, self.dataset, self.splits = spec.name, spec.dataset or spec.name, spec.splits
        #: Between the prompt and an answer (none after a chat template, as the Harness does).
        self.delimiter = "" if self.chat else spec.target_delimiter

    def config(self) -> dict[str, Any]:
        return {
            "task": self.name,
            "style": "multiple choice by log-likelihood",
            **self.spec.protocol,
            "target_delimiter": self.delimiter,
            "acc_norm": self.spec.acc_norm,
            "chat": self.chat,
            "system_instruction": self.system_instruction,
        }

    def prompt_template(self, model: Any) -> str:
        return wrap_prompt("{prompt}", model, self.chat, self.system_instruction)

    def load(self, data: str | Path | None, split: str, limit: int | float | None, seed: int) -> TaskData:
        folder = locate_dataset(self.dataset, data)
        items = self.spec.read(folder, split)
        check_unique_ids(folder, split, [item.item_id for item in items])
        total = len(items)
        limit = resolve_limit(limit, total)
        if limit is not None and self.spec.group_field:  # the first questions of each group, as evenly as can be
            items = first_per_group(items, limit, lambda item: item.fields[self.spec.group_field])
        elif limit is not None:
            items = items[:limit]
        return TaskData(
            items,
            self.spec.data_files(folder, split),
            {"split": split, "limit": limit, "count": len(items), "items_in_split": total},
        )

    def requests(self, items: Sequence[ChoiceQuestion], model: Any = None) -> list[tuple[LoglikelihoodRequest, ...]]:
        if self.chat and model is None:
            raise NegkitError("the chat template needs the model")
        return [
            tuple(
                LoglikelihoodRequest(
                    wrap_prompt(item.prompt, model, self.chat, self.system_instruction), self.delimiter + choice
                )
                for choice in item.choices
            )
            for item in items
        ]

    def records(self, items: Sequence[ChoiceQuestion], responses: Sequence[Sequence[Any]]) -> list[dict[str, Any]]:
        records = []
        for item, answers in zip(items, responses):
            scores = [answer.logprob for answer in answers]
            norm = {"prediction_norm": predict_normalised(scores, item.choices)} if self.spec.acc_norm else {}
            records.append(_record(item, predict(scores), {"scores": scores, **norm}))
        return records

    def answer_space(self, items: Sequence[ChoiceQuestion]) -> AnswerSpace | None:
        """The answers by name (stripped) for the constant and majority baselines; None when they differ per
        question."""
        offered = {item.choices for item in items}
        if len(offered) > 1:
            return None
        choices = offered.pop() if offered else ()
        return AnswerSpace(
            {choice.strip(): choice for choice in choices}, tuple(item.choices[item.gold].strip() for item in items)
        )

    def metrics(self, items: Sequence[ChoiceQuestion], records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        return choice_metrics(records, self.spec.acc_norm) | group_accuracy(records, self.spec)

    def estimands(
        self, items: Sequence[ChoiceQuestion], records: Sequence[Mapping[str, Any]], headline_only: bool = False
    ) -> list[Estimand]:
        estimands = choice_estimands(records, self.spec.acc_norm, self.spec.unit, headline_only)
        return estimands + ([] if headline_only else group_estimands(records, self.spec))

    def tables(self, metrics: dict[str, Any]) -> str:
        return choice_tables(self.spec.title or self.name, metrics, group_table(metrics, self.spec))

    def harness_scores(self, records: Sequence[Mapping[str, Any]]) -> dict[str, list[float]]:
        """Per-question ``acc`` (and ``acc_norm``) for results.json's Harness layout."""
        keys = (("acc", "prediction"), ("acc_norm", "prediction_norm"))[: 2 if self.spec.acc_norm else 1]
        return {name: [float(record[key] == record["gold"]) for record in records] for name, key in keys}

    def predictions(self, path: Path, items: Sequence[ChoiceQuestion]) -> list[dict[str, Any]]:
        """The records of a predictions file made elsewhere, in the eval's shape: lines ``{"item_id": ...,
        "prediction": INDEX or ANSWER}`` (``{"index": N}`` for the N-th question; ``prediction_norm`` optional:
        ``acc_norm`` is then the prediction's own); ``negkit eval``'s samples file is read as well."""
        by_id = {item.item_id: item for item in items}
        order = [item.item_id for item in items]

        def item_id_of(line: int, record: Mapping[str, Any]) -> str:
            if "item_id" not in record and "index" in record:
                index = whole_number(path, line, record, "index")
                return order[index] if index < len(order) else f"#{index}"
            if "item_id" not in record:
                raise InputFormatError(path, line, "missing field 'item_id' (or 'index')")
            return string(path, line, record, "item_id")

        def chosen(line: int, record: Mapping[str, Any]) -> tuple[int, int | None]:
            item = by_id[item_id_of(line, record)]
            norm = record.get("prediction_norm")
            return (
                _choice_index(path, line, item, record_field(path, line, record, "prediction"), "prediction"),
                None if norm is None else _choice_index(path, line, item, norm, "prediction_norm"),
            )

        predicted = read_predictions(path, set(by_id), item_id_of, chosen)
        records = []
        for item in items:
            if item.item_id in predicted:
                prediction, norm = predicted[item.item_id]
                extra = {"prediction_norm": prediction if norm is None else norm} if self.spec.acc_norm else {}
                records.append(_record(item, prediction, extra))
        return records

    def items_from_records(self, records: Sequence[Mapping[str, Any]], path: Path) -> list[ChoiceQuestion]:
        """The questions as far as ``negkit compare`` needs them (gold, choices, unit), from a samples file."""
        group = self.spec.group_field
        return [
            ChoiceQuestion(
                str(record["item_id"]),
                "",
                tuple(need(record, "choices", path, number)),
                need(record, "gold", path, number, int),
                record.get("unit"),
                {group: need(record, group, path, number)} if group else {},
            )
            for number, record in enumerate(records, start=1)
        ]


def _record(item: ChoiceQuestion, prediction: int, extra: Mapping[str, Any]) -> dict[str, Any]:
    correct = prediction == item.gold
    return {
        "item_id": item.item_id,
        **item.fields,
        "choices": list(item.choices),
        **extra,
        "prediction": prediction,
        "gold": item.gold,
        "correct": correct,
        "unit": item.unit or item.item_id,
    }


def _choice_index(path: Path, line: int, item: ChoiceQuestion, value: Any, name: str) -> int:
    """A predicted answer: its 0-based index, or the answer as written or stripped."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(item.choices):
        return value
    if isinstance(value, str):
        for index, choice in enumerate(item.choices):
            if value in (choice, choice.strip()):
                return index
    raise InputFormatError(
        path,
        line,
        f"field {name!r}: {quoted(value, 40)} is not one of the answers "
        f"{[choice.strip() for choice in item.choices]} or their index",
    )


def answer_names(records: Sequence[Mapping[str, Any]]) -> list[str]:
    """Each answer position's name: the answer as written (stripped) where every question has the same one there,
    else ``choice N``."""
    width = max((len(record["choices"]) for record in records), default=0)
    names = []
    for position in range(width):
        written = {record["choices"][position].strip() for record in records if len(record["choices"]) > position}
        names.append(written.pop() if len(written) == 1 else f"choice {position + 1}")
    return names


def choice_metrics(records: Sequence[Mapping[str, Any]], acc_norm: bool = False) -> dict[str, Any]:
    """``count``, ``acc`` (and ``acc_norm``), ``correct``, and the share of questions answered (``choice_share``)
    and rightly answered (``gold_share``) with each answer position, named by :func:`answer_names`."""
    count = len(records)

    def share(values: Sequence[bool]) -> float:
        return sum(values) / count if count else 0.0

    metrics: dict[str, Any] = {
        "count": count,
        "acc": share([record["prediction"] == record["gold"] for record in records]),
    }
    if acc_norm:
        metrics["acc_norm"] = share([record["prediction_norm"] == record["gold"] for record in records])
    metrics["correct"] = sum(record["prediction"] == record["gold"] for record in records)
    names = answer_names(records)
    metrics["choice_share"] = {
        name: share([record["prediction"] == position for record in records]) for position, name in enumerate(names)
    }
    metrics["gold_share"] = {
        name: share([record["gold"] == position for record in records]) for position, name in enumerate(names)
    }
    return metrics


def choice_estimands(
    records: Sequence[Mapping[str, Any]], acc_norm: bool = False, unit: str = "question", headline_only: bool = False
) -> list[Estimand]:
    """``acc`` (and ``acc_norm``), the headline, and each ``choice_share.NAME``, resampling each record's unit."""
    units = [str(record.get("unit", record["item_id"])) for record in records]
    estimands = []
    for key, path in (("prediction", "acc"), ("prediction_norm", "acc_norm"))[: 2 if acc_norm else 1]:
        correct = np.array([record[key] == record["gold"] for record in records], dtype=float)
        estimands.append(ratio_estimand(path, correct, None, units, unit, label=path, headline=True))
    if headline_only:
        return estimands
    for position, name in enumerate(answer_names(records)):
        picked = np.array([record["prediction"] == position for record in records], dtype=float)
        estimands.append(ratio_estimand(f"choice_share.{name}", picked, None, units, unit, label=f"answers {name}"))
    return estimands


def _grouped(records: Sequence[Mapping[str, Any]], spec: MultipleChoice) -> dict[str, list[Mapping[str, Any]]]:
    names = [str(record[spec.group_field]) for record in records]
    order = [name for name in spec.groups if name in names] + sorted(set(names) - set(spec.groups))
    return {name: [record for record, own in zip(records, names) if own == name] for name in order}


def group_accuracy(records: Sequence[Mapping[str, Any]], spec: MultipleChoice) -> dict[str, Any]:
    """``{GROUPS_KEY: {NAME: {"count", "correct", "acc"}}}`` for a declared ``group_field`` (else ``{}``)."""
    if not spec.group_field:
        return {}
    groups = {}
    for name, members in _grouped(records, spec).items():
        correct = sum(record["prediction"] == record["gold"] for record in members)
        groups[name] = {"count": len(members), "correct": correct, "acc": correct / len(members)}
    return {spec.groups_key: groups}


def group_estimands(records: Sequence[Mapping[str, Any]], spec: MultipleChoice) -> list[Estimand]:
    """The accuracy of each group (``GROUPS_KEY.NAME.acc``), resampling each record's unit."""
    if not spec.group_field:
        return []
    units = [str(record.get("unit", record["item_id"])) for record in records]
    correct = np.array([record["prediction"] == record["gold"] for record in records], dtype=float)
    return [
        ratio_estimand(f"{spec.groups_key}.{name}.acc", correct * mask, mask, units, spec.unit, label=f"acc: {name}")
        for name in _grouped(records, spec)
        for mask in [np.array([str(record[spec.group_field]) == name for record in records], dtype=float)]
    ]


def group_table(metrics: dict[str, Any], spec: MultipleChoice) -> str:
    """Accuracy per group, with intervals (empty without a declared ``group_field``)."""
    groups = metrics.get(spec.groups_key) if spec.group_field else None
    if not groups:
        return ""
    intervals = metrics.get("intervals")
    rows = [
        [
            name,
            values["count"],
            values["correct"],
            with_interval(values["acc"], intervals, f"{spec.groups_key}.{name}.acc"),
        ]
        for name, values in groups.items()
    ]
    return f"Accuracy by {spec.group_field}:\n\n" + markdown_table(
        [spec.group_field, "questions", "right", "acc"], rows
    )


def choice_tables(title: str, metrics: dict[str, Any], extra: str = "") -> str:
    """Markdown for :func:`choice_metrics`: accuracy, and the answers given against the right ones (then ``extra``,
    e.g. :func:`group_table`)."""
    intervals = metrics.get("intervals")
    names = ["acc", "acc_norm"] if "acc_norm" in metrics else ["acc"]
    accuracy = markdown_table(
        ["questions", *names], [[metrics["count"], *(with_interval(metrics[name], intervals, name) for name in names)]]
    )
    gold = metrics.get("gold_share", {})
    answers = markdown_table(
        ["answer", "share of the model's answers", "share of the right answers"],
        [
            [name, with_interval(value, intervals, f"choice_share.{name}"), number(gold.get(name))]
            for name, value in metrics.get("choice_share", {}).items()
        ],
    )
    norm = "; acc_norm per character" if "acc_norm" in metrics else ""
    parts = [
        f"### {title} — {metrics['count']} questions",
        f"Accuracy (each answer scored as a continuation of the prompt{norm}):",
        accuracy,
        "Answers given:",
        answers,
    ] + ([extra] if extra else [])
    note = interval_note(intervals)
    return "\n\n".join(parts + ([note] if note else [])) + "\n"


def choice_figures(metrics: dict[str, Any], records: Sequence[dict[str, Any]] | None = None) -> list[Figure]:
    """Accuracy (dashed: chance, where every question has the same number of answers), and which answer the
    model gave against which was right."""
    names = ["acc", "acc_norm"] if "acc_norm" in metrics else ["acc"]
    answers = list(metrics.get("choice_share", {}))
    chance = 1 / len(answers) if answers and not any(name.startswith("choice ") for name in answers) else None
    accuracy = plots.interval_bars(
        names, {"accuracy": [triple(metrics, name) for name in names]}, "accuracy", "accuracy", (0, 1), reference=chance
    )
    shares = plots.interval_bars(
        answers,
        {
            "model's answers": [triple(metrics, f"choice_share.{name}") for name in answers],
            "right answers": [(metrics.get("gold_share", {}).get(name), None, None) for name in answers],
        },
        "answers given and right",
        "share of questions",
        (0, 1),
    )
    return [
        ("Accuracy (95% intervals" + ("; dashed: chance)" if chance else ")"), accuracy),
        ("Answers given and right answers", shares),
    ]


def write_choice_harness(task: ChoiceTask, loaded: TaskData, out: Path) -> dict[str, Any]:
    """The questions for the LM Evaluation Harness: the prompt, the answers as continuations after the task's
    delimiter, the gold index; scored by ``acc`` (and ``acc_norm``)."""
    name = task.spec.harness_name
    docs = [
        {"item_id": q.item_id, "prompt": q.prompt, "choices": list(q.choices), "gold": q.gold} for q in loaded.items
    ]
    atomic_write_jsonl(out / f"{name}.test.jsonl", docs)
    norm = "  - metric: acc_norm\n    aggregation: mean\n    higher_is_better: true\n" if task.spec.acc_norm else ""
    atomic_write_text(
        out / f"{name}.yaml",
        harness_task_yaml(
            name,
            harness_loader(name),
            "prompt",
            "choices",
            "gold",
            task.delimiter,
            f"{task.name}: the answers scored after the prompt (arg-max).",
            metrics=norm,
        ),
    )
    return {"docs": {"test": f"{name}.test.jsonl"}}


def choice_figures_of(
    spec: MultipleChoice,
) -> Callable[[dict[str, Any], Sequence[dict[str, Any]] | None], list[Figure]]:
    """:func:`choice_figures`, and with a declared ``group_field`` the accuracy per group."""

    def figures(metrics: dict[str, Any], records: Sequence[dict[str, Any]] | None = None) -> list[Figure]:
        result = choice_figures(metrics, records)
        groups = list(metrics.get(spec.groups_key) or {}) if spec.group_field else []
        if groups:
            bars = plots.interval_bars(
                groups,
                {"acc": [triple(metrics, f"{spec.groups_key}.{name}.acc") for name in groups]},
                f"accuracy by {spec.group_field}",
                "accuracy",
                (0, 1),
                width=8.0,
            )
            result.append((f"Accuracy by {spec.group_field} (95% intervals)", bars))
        return result

    return figures
