"""Negated prompts (Jang, Ye & Seo 2022, "Can Large Language Models Truly Understand Prompts? A Case Study with
Negated Prompts"): nine tasks, each asked with its original PromptSource instruction ("Generate the correct answer
...") and with the negated one ("Generate the incorrect answer ..."), the same candidates scored as continuations.

Data under ``negated-prompts/``: per data set an original and a negated CSV file (:data:`DATASETS`; header
``sample_id,prompt,classes,answer_index``; ``classes`` a Python list literal of candidates with a leading space;
``answer_index`` the right candidate, or for the negated multiple-choice sets every wrong option of the original, as
``0,1,3``). Row i of the negated file asks the question of row i of the original (the README: the same
``sample_id`` and candidates for six sets; the same question with other candidates for NQ, TriviaQA and WebQuestions);
each row pair is one :mod:`negkit.kit.tasks.paired` item with the parts ``original`` and ``negated``. As the
authors' scorer: each candidate's log-likelihood as the continuation of the prompt, the arg-max the prediction,
right when it is a right answer. Metrics per data set and overall: ``original.accuracy``, ``negated.accuracy`` (the
primary metric) and ``gap`` = original minus negated accuracy (the paper: larger models widen it); intervals
resample row pairs. negkit reads the full files (300 rows; COPA 100); the authors' ``_50`` subsets are rows of them.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any

from pydantic import BeforeValidator, ValidationInfo, WrapValidator

from negkit.errors import InputFormatError, quoted
from negkit.kit.data.rows import DataRow, Text, read_rows
from negkit.kit.metrics.grouped import RecordMetric
from negkit.kit.suites import DataSource, register_suite
from negkit.kit.suites.kinds import declared_suite
from negkit.kit.tasks.paired import PairedItem, PairedQuestions, PartQuestion

NAME = "negated-prompts"
#: Data set -> (original file, negated file).
DATASETS: dict[str, tuple[str, str]] = {
    "arc_easy": ("ai2_arc_q_a_300.csv", "ai2_arc_q_a negation_300.csv"),
    "hellaswag": ("hellaswag_Open-ended completion_300.csv", "hellaswag_Open-ended completion negation_300.csv"),
    "lambada": ("lambada_please next word_300.csv", "lambada_please next word negation_300.csv"),
    "piqa": ("piqa_generate_300.csv", "piqa_generate negation_300.csv"),
    "story_cloze": ("story_cloze_Generate Ending_300.csv", "story_cloze_Generate Ending Negation_300.csv"),
    "copa": ("super_glue_generate_100.csv", "super_glue_generate negation_100.csv"),
    "nq": ("nq_correct_answer_300.csv", "nq_correct_answer negation_300.csv"),
    "triviaqa": ("triviaqa_correct_answer_300.csv", "triviaqa_correct_answer negation_300.csv"),
    "webqa": ("webqa_correct_answer_300.csv", "webqa_correct_answer negation_300.csv"),
}


def _candidates(text: str) -> tuple[str, ...]:
    try:
        classes = ast.literal_eval(text.strip())
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        classes = None
    if not isinstance(classes, list) or len(classes) < 2 or not all(isinstance(c, str) and c for c in classes):
        raise ValueError(f"expected a list of candidates, found {quoted(text, 40)}")
    return tuple(classes)


def _indices(text: str, handler: Any, info: ValidationInfo) -> tuple[int, ...]:
    classes = info.data.get("classes", ())
    indices = [part.strip() for part in text.split(",")]
    if not all(index.isdigit() and int(index) < len(classes) for index in indices):
        raise ValueError(f"{quoted(text)} is not the index (or indices) of the {len(classes)} candidates")
    return tuple(int(index) for index in indices)


class Prompt(DataRow):
    """A row of a prompt file: the candidates (a list literal) and the right one's index, or several (``1,3``)."""

    sample_id: str
    classes: Annotated[tuple[str, ...], BeforeValidator(_candidates)]
    answer_index: Annotated[tuple[int, ...], WrapValidator(_indices)]
    prompt: Text


def read_prompt_file(path: Path) -> list[tuple[int, str, PartQuestion]]:
    """``(line, sample_id, question)`` of one CSV file; a bad row names the file and line."""
    found = []
    for line, row in read_rows(path, Prompt, allow_empty=True):
        first, *others = row.answer_index
        found.append(
            (line, row.sample_id.strip(), PartQuestion(row.prompt, row.classes, first, also_right=tuple(others)))
        )
    return found


def read_dataset(folder: str | Path, dataset: str) -> list[PairedItem]:
    """The row pairs of one data set (its two files have as many rows)."""
    original_file, negated_file = (Path(folder) / name for name in DATASETS[dataset])
    original, negated = read_prompt_file(original_file), read_prompt_file(negated_file)
    if len(original) != len(negated):
        raise InputFormatError(
            negated_file,
            None,
            f"{len(negated)} rows for the {len(original)} of {original_file.name} (the files are aligned row by row)",
        )
    return [
        PairedItem(f"{dataset}-{row}", dataset, {"original": first, "negated": second}, fields={"sample_id": sample_id})
        for row, ((_line, sample_id, first), (_, _, second)) in enumerate(zip(original, negated))
    ]


def read_negated_prompts(folder: str | Path, split: str = "test") -> list[PairedItem]:
    """Every row pair of the nine data sets."""
    return [item for dataset in DATASETS for item in read_dataset(folder, dataset)]


def prompt_files(folder: str | Path, split: str = "test") -> list[Path]:
    return [Path(folder) / name for pair in DATASETS.values() for name in pair]


def _gap(record: Mapping[str, Any]) -> float | None:
    original, negated = record.get("original") or {}, record.get("negated") or {}
    if "correct" not in original or "correct" not in negated:
        return None
    return float(bool(original["correct"])) - float(bool(negated["correct"]))


NEGATED_PROMPTS = PairedQuestions(
    NAME,
    read_negated_prompts,
    prompt_files,
    parts=("original", "negated"),
    twins=("original", "negated"),
    title="Negated prompts",
    style="continuation",
    group_field="dataset",
    groups_key="datasets",
    groups=tuple(DATASETS),
    unit="row pair",
    extra_metrics=(RecordMetric("gap", _gap, "original minus negated"),),
    headline=("negated.accuracy", "original.accuracy", "gap"),
    protocol="each candidate scored as the continuation of the prompt (original or negated instruction); gap: "
    "original minus negated accuracy",
)

SUITE = register_suite(
    declared_suite(
        NEGATED_PROMPTS,
        DataSource.declared(__file__),
        "Negated prompts: each task with its original and its negated instruction, accuracy on both and the gap",
        reader=read_negated_prompts,
        order=160,
        groups=("negation-all",),
        scorer_help='score negated-prompts predictions: JSON Lines {"item_id": "piqa-0", "original": 1, "negated": 0} '
        "(a candidate or its index), or negkit eval's samples file",
    )
)
