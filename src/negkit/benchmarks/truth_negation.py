"""Negated true/false statements (Marks & Tegmark 2023, "The Geometry of Truth"; Bürger et al., NeurIPS 2024, "Truth
is Universal"): six topics of true and false statements, each row with its negated twin ("The city of Krasnodar is in
Russia." / "... is not in Russia.", the label flipped), asked as :mod:`negkit.kit.tasks.paired` pairs.

Data under ``truth-negation/``: ``TOPIC.csv`` and ``neg_TOPIC.csv`` for the topics of :data:`TOPICS`, header
``statement,label`` (``cities`` adds ``city,country,correct_country``), ``label`` 1 true, 0 false; row i of
``neg_TOPIC.csv`` negates row i of ``TOPIC.csv`` and has the other label (checked). The papers probe the models'
activations; negkit asks the model behaviourally, as TIND is scored (the authors' first-token protocol of
:mod:`negkit.benchmarks.tind`): ``Is the following statement True or False? STATEMENT`` (with a chat template the user
message adds "Answer only True or False."), then P(True) against P(False) of the first sub-tokens of ``True`` and
``False`` at the next position; true when P(True) is the larger (an exact tie counts as True, where TIND's
p(True) > 0.5 counts it as False). Metrics: accuracy on the affirmative and on the
negated halves, pooled, and per pair whether the two answers differ as the labels do (``consistency``); per topic and
overall (every pair pooled). Intervals resample a statement with its twin.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import ConfigDict

from negkit.errors import InputFormatError
from negkit.kit.data.rows import DataRow, Text, read_rows
from negkit.kit.suites import DataSource, register_suite
from negkit.kit.suites.kinds import declared_suite
from negkit.kit.tasks.paired import PairedItem, PairedQuestions, PartQuestion

NAME = "truth-negation"
TOPICS = ("cities", "sp_en_trans", "inventors", "animal_class", "element_symb", "facts")
QUESTION = "Is the following statement True or False?"
CHAT_QUESTION = "Is the following statement True or False? Answer only True or False."
ANSWERS = ("True", "False")


class Statement(DataRow):
    """A row of a topic's CSV file (cells stripped): the statement and whether it is true (1) or false (0)."""

    model_config = ConfigDict(str_strip_whitespace=True)

    statement: Text
    label: Literal["0", "1"]


def read_statements(path: Path) -> list[tuple[int, str, bool]]:
    """``(line, statement, label)`` of one CSV file (a topic may have none)."""
    return [(line, row.statement, row.label == "1") for line, row in read_rows(path, Statement, allow_empty=True)]


def _part(statement: str, label: bool) -> PartQuestion:
    return PartQuestion(f"{QUESTION} {statement}", ANSWERS, 0 if label else 1, f"{CHAT_QUESTION} {statement}")


def read_topic(folder: Path, topic: str) -> list[PairedItem]:
    """The pairs of one topic: ``TOPIC.csv`` with ``neg_TOPIC.csv`` row by row (same length, labels flipped)."""
    affirmative, negated = read_statements(folder / f"{topic}.csv"), read_statements(folder / f"neg_{topic}.csv")
    if len(affirmative) != len(negated):
        raise InputFormatError(
            folder / f"neg_{topic}.csv",
            None,
            f"{len(negated)} statements for the {len(affirmative)} of {topic}.csv (the files are aligned row by row)",
        )
    items = []
    for (line, statement, label), (_, twin, twin_label) in zip(affirmative, negated):
        if twin_label == label:
            raise InputFormatError(folder / f"neg_{topic}.csv", line, "a negated statement must have the other label")
        items.append(
            PairedItem(
                f"{topic}-{line - 1}",
                topic,
                {"affirmative": _part(statement, label), "negated": _part(twin, twin_label)},
                fields={"statement": statement, "negated_statement": twin, "label": label},
            )
        )
    return items


def truth_files(folder: str | Path, split: str = "test") -> list[Path]:
    return [Path(folder) / f"{prefix}{topic}.csv" for topic in TOPICS for prefix in ("", "neg_")]


def read_truth_negation(folder: str | Path, split: str = "test") -> list[PairedItem]:
    """Every pair of the six topics."""
    return [item for topic in TOPICS for item in read_topic(Path(folder), topic)]


TRUTH = PairedQuestions(
    NAME,
    read_truth_negation,
    truth_files,
    title="Negated true/false statements",
    style="first-token",
    chat="auto",
    group_field="topic",
    groups_key="topics",
    groups=TOPICS,
    unit="statement pair",
    headline=("accuracy", "affirmative.accuracy", "negated.accuracy", "consistency"),
    protocol="True or False by P(True) against P(False) at the next token (TIND's protocol); "
    "consistency: the answers to a statement and its negation differ, as their labels do.",
)

SUITE = register_suite(
    declared_suite(
        TRUTH,
        DataSource.declared(__file__),
        "Negated true/false statements: accuracy on both halves and consistency between twins, scored as TIND",
        reader=read_truth_negation,
        order=120,
        groups=("negation-all",),
        scorer_help='score truth-negation predictions: JSON Lines {"item_id": "cities-1", "affirmative": true, "negated": false} '
        "(True / False, or 0 / 1: the answer's index), or negkit eval's samples file",
    )
)
