"""BECEL's negational-consistency sets (Jang, Kwon & Lukasiewicz, COLING 2022): items of BoolQ, MRPC, RTE, SNLI and
WiC, each with a negated version of one input (a cue inserted, a word replaced by its antonym, or a cue removed) and
the label that version has.

``TASK/negational.tsv`` (tab-separated without quoting, a header, one row per pair; columns in :data:`TASKS`) holds the original
input and label and the negated input and its label. One task per file (``becel-negation-TASK``; the suite's name
runs all five, the main task is SNLI, the largest). The paper fine-tunes each model on the task; negkit asks a
language model zero-shot, each pair as a :mod:`negkit.kit.tasks.paired` item (parts ``original`` and ``negated``)
with the LM Evaluation Harness's prompt of the task (SNLI: the kit's three-way NLI prompt), each answer scored as a
continuation.

The authors' negational inconsistency (``src/evaluation_metrics.py``) is the share of pairs whose negated input gets
the same prediction as the original, where every label changes (BoolQ, MRPC, RTE, SNLI); lower is better. negkit
reports ``inconsistency`` so and, as its primary metric (higher is better), ``negational_consistency``: the
prediction changes where the labels differ and stays where they agree (WiC, whose labels never change: the README's
reading, since the plain agreement would reward a model that ignores the negation). ``conditioned_consistency`` is
the authors' conditioned variant: only pairs whose original prediction is right. Also each part's accuracy.
Groups: how the negated text was made (``tag``); intervals resample pairs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cache
from pathlib import Path
from typing import Annotated, Any, Literal, get_args

from pydantic import ConfigDict, ValidatorFunctionWrapHandler, WrapValidator, create_model

from negkit.errors import InputFormatError, quoted
from negkit.kit.data.rows import DataRow, Text, read_rows
from negkit.kit.metrics.grouped import RecordMetric
from negkit.kit.suites import DataSource, register_suite
from negkit.kit.suites.description import TaskEntry
from negkit.kit.suites.kinds import declared_suite, paired_harness
from negkit.kit.suites.nli import THREE_WAY_PROMPT
from negkit.kit.tasks.paired import PairedItem, PairedQuestions, PartQuestion

NAME = "becel-negation"
Tag = Literal["negation", "antonym", "rm_negation"]
TAGS: tuple[str, ...] = get_args(Tag)
YES_NO = (" no", " yes")
#: Task -> (prompt with {fields}, the field the negated column replaces, that column, answers by label index).
TASKS: dict[str, tuple[str, str, str, tuple[str, ...]]] = {
    "boolq": ("{passage}\nQuestion: {question}?\nAnswer:", "question", "question_neg", YES_NO),
    "mrpc": (
        "Sentence 1: {sentence1}\nSentence 2: {sentence2}\nQuestion: Do both sentences mean the same thing?\nAnswer:",
        "sentence2",
        "sentence2_neg",
        YES_NO,
    ),
    "rte": (
        "{sentence1}\nQuestion: {sentence2} True or False?\nAnswer:",
        "sentence2",
        "sentence2_neg",
        (" True", " False"),
    ),
    "snli": (THREE_WAY_PROMPT, "hypothesis", "hypothesis_neg", (" entailment", " neutral", " contradiction")),
    "wic": (
        "Sentence 1: {sentence1}\nSentence 2: {sentence2}\nQuestion: Is the word '{word}' used in the same way in "
        "the two sentences above?\nAnswer:",
        "sentence2",
        "sentence2_neg",
        YES_NO,
    ),
}


class Pair(DataRow):
    """The columns of every task's ``negational.tsv`` (cells stripped); :func:`row_type` adds the task's own."""

    model_config = ConfigDict(str_strip_whitespace=True)

    index: str
    tag: Tag


def _label(count: int) -> WrapValidator:
    def check(value: Any, handler: ValidatorFunctionWrapHandler) -> int:
        text = value.strip() if isinstance(value, str) else ""
        if not text.isdigit() or int(text) >= count:
            raise ValueError(f"{quoted(value)} is not a label (0 to {count - 1})")
        return int(text)

    return WrapValidator(check)


@cache
def row_type(task: str) -> type[Pair]:
    """The row of ``TASK/negational.tsv``: the prompt's fields and the negated one as texts, both labels."""
    template, _, negated_column, answers = TASKS[task]
    label = Annotated[int, _label(len(answers))]
    texts: dict[str, Any] = {name: (Text, ...) for name in (*_fields(template), negated_column)}
    return create_model(f"BECEL_{task}", __base__=Pair, label=(label, ...), neg_label=(label, ...), **texts)


def read_becel(path: str | Path, task: str = "") -> list[PairedItem]:
    """The pairs of one ``negational.tsv`` (``task``: the folder's name by default); a bad row names the file and
    line."""
    path = Path(path)
    task = task or path.parent.name
    if task not in TASKS:
        raise InputFormatError(path, None, f"unknown BECEL task {task!r} (expected one of {', '.join(TASKS)})")
    template, field, negated_column, answers = TASKS[task]
    items = []
    for _, row in read_rows(path, row_type(task), format="tsv"):
        cells = row.model_dump()
        original = template.format(**{name: cells[name] for name in _fields(template)})
        negated = template.format(
            **{name: cells[negated_column if name == field else name] for name in _fields(template)}
        )
        parts = {
            "original": PartQuestion(original, answers, cells["label"]),
            "negated": PartQuestion(negated, answers, cells["neg_label"]),
        }
        items.append(PairedItem(f"{task}-{row.index}", row.tag, parts))
    return items


def _fields(template: str) -> list[str]:
    return [
        name
        for name in ("passage", "question", "sentence1", "sentence2", "premise", "hypothesis", "word")
        if "{" + name + "}" in template
    ]


def _consistent(record: Mapping[str, Any], conditioned: bool = False) -> float | None:
    """1 when the prediction changes between the parts exactly where the labels do (None: the original is wrong and
    ``conditioned``)."""
    original, negated = record.get("original") or {}, record.get("negated") or {}
    if "prediction" not in original or "prediction" not in negated or (conditioned and not original.get("correct")):
        return None
    return float((original["prediction"] != negated["prediction"]) == (original["gold"] != negated["gold"]))


def _same(record: Mapping[str, Any]) -> float | None:
    original, negated = record.get("original") or {}, record.get("negated") or {}
    if "prediction" not in original or "prediction" not in negated:
        return None
    return float(original["prediction"] == negated["prediction"])


EXTRA = (
    RecordMetric("negational_consistency", _consistent, "prediction changes as the label does"),
    RecordMetric("conditioned_consistency", lambda record: _consistent(record, True), "the same, original right"),
    RecordMetric("inconsistency", _same, "same prediction (the authors' inconsistency, lower is better)"),
)


def _spec(task: str) -> PairedQuestions:
    def read(folder: Path, split: str = "test") -> list[PairedItem]:
        return read_becel(Path(folder) / task / "negational.tsv", task)

    def files(folder: Path, split: str = "test") -> list[Path]:
        return [Path(folder) / task / "negational.tsv"]

    return PairedQuestions(
        f"{NAME}-{task}",
        read,
        files,
        parts=("original", "negated"),
        twins=("original", "negated"),
        title=f"BECEL negation ({task})",
        dataset=NAME,
        style="continuation",
        group_field="tag",
        groups_key="tags",
        groups=TAGS,
        unit="pair",
        extra_metrics=EXTRA,
        headline=("negational_consistency", "inconsistency", "original.accuracy", "negated.accuracy"),
        protocol="zero-shot, each answer scored as a continuation of the Harness's prompt of the task; "
        "negational_consistency: the prediction changes where the labels do (1 - the authors' "
        "inconsistency where every label changes)",
    )


SPECS: dict[str, PairedQuestions] = {task: _spec(task) for task in TASKS}


def _factory(spec: PairedQuestions) -> Callable[..., Any]:
    return spec.task


SUITE = register_suite(
    declared_suite(
        SPECS["snli"],
        DataSource.declared(__file__),
        name=NAME,
        title="BECEL negational consistency (Jang et al. 2022)",
        main_task=f"{NAME}-snli",
        tasks=tuple(
            TaskEntry(
                spec.name,
                _factory(spec),
                f"BECEL negation, {task}: original and negated input, whether the prediction changes as the label does",
            )
            for task, spec in SPECS.items()
        ),
        task_harness={spec.name: paired_harness(spec) for key, spec in SPECS.items() if key != "snli"},
        reader=read_becel,
        order=150,
        groups=("negation-all",),
        scorer_help='score becel-negation predictions: JSON Lines {"item_id": "snli-0", "original": "entailment", '
        '"negated": "contradiction"} (an answer or its index), or negkit eval\'s samples file',
    )
)
