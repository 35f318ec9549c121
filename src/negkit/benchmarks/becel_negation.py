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
from pathlib import Path
from typing import Any

from negkit.errors import InputFormatError, quoted
from negkit.io.textfiles import read_text
from negkit.kit.data.declared import declared_files
from negkit.kit.metrics.grouped import RecordMetric
from negkit.kit.suites import DataSource, register_suite
from negkit.kit.suites.description import TaskEntry
from negkit.kit.suites.kinds import paired_harness, paired_suite
from negkit.kit.suites.nli import THREE_WAY_PROMPT
from negkit.kit.tasks.paired import PairedItem, PairedQuestions, PartQuestion

#: The papers behind the data and protocol (``negkit cite``).
BIBTEX = r"""@inproceedings{jang2022a,
  title = {{BECEL}: Benchmark for Consistency Evaluation of Language Models},
  author = {Jang, Myeongjun and Kwon, Deuk Sin and Lukasiewicz, Thomas},
  booktitle = {Proceedings of the 29th International Conference on Computational Linguistics},
  year = {2022},
  publisher = {International Committee on Computational Linguistics}
}"""

NAME = "becel-negation"
TAGS = ("negation", "antonym", "rm_negation")
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


def _label(path: Path, line: int, row: Mapping[str, str], column: str, count: int) -> int:
    value = row[column].strip()
    if not value.isdigit() or int(value) >= count:
        raise InputFormatError(
            path, line, f"column {column!r}: {quoted(row[column])} is not a label (0 to {count - 1})"
        )
    return int(value)


def read_becel(path: str | Path, task: str = "") -> list[PairedItem]:
    """The pairs of one ``negational.tsv`` (``task``: the folder's name by default); a bad row names the file and
    line."""
    path = Path(path)
    task = task or path.parent.name
    if task not in TASKS:
        raise InputFormatError(path, None, f"unknown BECEL task {task!r} (expected one of {', '.join(TASKS)})")
    template, field, negated_column, answers = TASKS[task]
    rows = (
        (number, line.split("\t")) for number, line in enumerate(read_text(path, "BECEL file").splitlines(), start=1)
    )
    first = next(rows, None)
    if first is None:
        raise InputFormatError(path, 1, "empty file (expected a header)")
    header = [name.strip() for name in first[1]]
    needed = {"index", "label", "neg_label", "tag", negated_column, *_fields(template)}
    missing = sorted(needed - set(header))
    if missing:
        raise InputFormatError(path, first[0], f"missing column(s): {', '.join(missing)}")
    items = []
    for line, values in rows:
        if not any(value.strip() for value in values):
            continue
        if len(values) != len(header):
            raise InputFormatError(path, line, f"expected {len(header)} columns, found {len(values)}")
        row = dict(zip(header, values))
        for column in (*_fields(template), negated_column):
            if not row[column].strip():
                raise InputFormatError(path, line, f"column {column!r}: empty")
        tag = row["tag"].strip()
        if tag not in TAGS:
            raise InputFormatError(path, line, f"column 'tag': {quoted(tag)} is not one of {', '.join(TAGS)}")
        original = template.format(**{name: row[name].strip() for name in _fields(template)})
        negated = template.format(
            **{name: row[negated_column if name == field else name].strip() for name in _fields(template)}
        )
        label, neg_label = (_label(path, line, row, column, len(answers)) for column in ("label", "neg_label"))
        items.append(
            PairedItem(
                f"{task}-{row['index'].strip()}",
                tag,
                {
                    "original": PartQuestion(original, answers, label),
                    "negated": PartQuestion(negated, answers, neg_label),
                },
            )
        )
    if not items:
        raise InputFormatError(path, None, "no pairs")
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
    paired_suite(
        SPECS["snli"],
        DataSource(
            NAME,
            "github MJ-Jang/BECEL data/{boolq,mrpc,rte,snli,wic}/negational.tsv into DATA/becel-negation/TASK/",
            licence="none stated (the source tasks' own: SNLI CC BY-SA 4.0, WiC CC BY-NC 4.0, ...)",
            files=declared_files(Path(__file__).with_name("becel_negation_files.json")),
            citation="jang2022a",
        ),
        bibtex=BIBTEX,
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
