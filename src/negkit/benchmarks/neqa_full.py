"""NeQA, full release (Zhang et al., Findings of ACL 2023, "Beyond Positive Scaling"): 1,718 negated two-option
questions tagged by how they were negated, and a 100-question control set that separates "answer the question" from
"understand the negation".

``neqa.jsonl``: ``question``, ``choices`` (2), ``answer`` and ``metadata``: ``negation_rule`` for the 500 OpenBookQA
items (``not/be``, ``not/modal``, ``not/do``, ``not/because``, ``prompt``, ``gold/un-in-``, ``manual/un-in-``), or
``dataset`` for the 1,218 built from negated LAMA (grouped as ``LAMA TREx`` etc.). Task ``neqa-full`` asks each with
the authors' zero-shot prompt (``eval_pipeline/data.py``: "The following are multiple choice questions (with
answers) about common sense.\\n\\nQuestion: Q\\nA. C0\\nB. C1\\nAnswer:") and compares `` A`` with `` B`` as
continuations (the authors compare the two next tokens; for single-token letters the same numbers), with accuracy per
rule. Intervals resample questions.

Task ``neqa-full-decomposition`` follows the authors' ``run.sh`` / ``Task2`` on the 100 aligned questions: per item the
negated question (``neqa_100.jsonl``), the same question without negation and the other answer
(``neqa_100_nonnegated.jsonl``: "answer the question") and whether two sentences are "the same" or "different"
("Sentence 1: "ORIGINAL ANSWER." Sentence 2: "NEGATED ANSWER."", from the ``*_normalized*`` files with the original
answer; the order of the options alternates with the row as in the authors' code: "understand the negation"), each
by the next-token probability of `` A`` against `` B``. The paper's simulation composes them: NeQA accuracy
= p1 p2 + (1 - p1)(1 - p2); ``consistency`` here is the share of items whose negated and original answers are both
right or both wrong. Intervals resample items.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

from pydantic import Field

from negkit.errors import InputFormatError
from negkit.kit.data.rows import DataRow, Text, index_of, read_rows
from negkit.kit.suites import DataSource, TaskEntry, register_suite
from negkit.kit.suites.kinds import declared_suite, paired_harness
from negkit.kit.tasks.choice import ChoiceQuestion, MultipleChoice
from negkit.kit.tasks.paired import PairedItem, PairedQuestions, PartQuestion

NAME, FILE = "neqa-full", "neqa.jsonl"
CONTROL = (
    "neqa_100.jsonl",
    "neqa_100_nonnegated.jsonl",
    "neqa_100_normalized.jsonl",
    "neqa_100_normalized_nonnegated.jsonl",
)
RULES = (
    "not/be",
    "not/modal",
    "not/do",
    "not/because",
    "prompt",
    "gold/un-in-",
    "manual/un-in-",
    "LAMA TREx",
    "LAMA GoogleRE",
    "LAMA ConceptNet",
    "LAMA SQUAD",
)
HEADER = "The following are multiple choice questions (with answers) about common sense.\n\n"
LETTERS = (" A", " B")


def prompt(question: str, choices: tuple[str, ...]) -> str:
    """The authors' zero-shot prompt of a two-option question."""
    return f"{HEADER}Question: {question}\nA. {choices[0]}\nB. {choices[1]}\nAnswer:"


class Question(DataRow):
    """A line of a NeQA file: a question, its two answers and the right one's index (``metadata``: its rule)."""

    question: Text
    choices: Annotated[list[Text], Field(min_length=2, max_length=2)]
    answer: Annotated[int, index_of("choices")]
    metadata: Any = None


def read_questions(path: Path) -> list[tuple[int, Question]]:
    """``(line, question)`` of a NeQA file."""
    return list(read_rows(path, Question))


def _rule(path: Path, line: int, metadata: Any) -> str:
    if not isinstance(metadata, dict) or not isinstance(metadata.get("negation_rule", metadata.get("dataset")), str):
        raise InputFormatError(path, line, "field 'metadata': expected an object with 'negation_rule' or 'dataset'")
    return metadata["negation_rule"] if "negation_rule" in metadata else f"LAMA {metadata['dataset']}"


def read_neqa_full(folder: str | Path, split: str = "test") -> list[ChoiceQuestion]:
    """The 1,718 questions of ``neqa.jsonl``, each with its ``rule``."""
    path = Path(folder) / FILE
    return [
        ChoiceQuestion(
            f"{NAME}-{line - 1}",
            prompt(row.question, tuple(row.choices)),
            LETTERS,
            row.answer,
            fields={"rule": _rule(path, line, row.metadata), "question": row.question, "options": row.choices},
        )
        for line, row in read_questions(path)
    ]


def read_decomposition(folder: str | Path, split: str = "test") -> list[PairedItem]:
    """The 100 control items: the negated and the original question and the same/different question per row."""
    negated, original, normal_negated, normal_original = (read_questions(Path(folder) / name) for name in CONTROL)
    if not len({len(rows) for rows in (negated, original, normal_negated, normal_original)}) == 1:
        raise InputFormatError(Path(folder) / CONTROL[1], None, "the four neqa_100 files must be aligned row by row")
    items = []
    for row, ((line, neg), (_, orig), (_, norm_neg), (_, norm_orig)) in enumerate(
        zip(negated, original, normal_negated, normal_original)
    ):
        answer = norm_orig.choices[norm_orig.answer]
        options, gold = (("the same", "different"), 1) if row % 2 == 0 else (("different", "the same"), 0)
        same = (
            f'Sentence 1: "{norm_orig.question} {answer}."\nSentence 2: "{norm_neg.question} {answer}."\n'
            f"Question: The above two sentences are?\nA. {options[0]}\nB. {options[1]}\nAnswer:"
        )
        items.append(
            PairedItem(
                f"{NAME}-control-{line - 1}",
                "control",
                {
                    "negated": PartQuestion(prompt(neg.question, tuple(neg.choices)), LETTERS, neg.answer),
                    "original": PartQuestion(prompt(orig.question, tuple(orig.choices)), LETTERS, orig.answer),
                    "negation": PartQuestion(same, LETTERS, gold),
                },
                fields={"question": neg.question},
            )
        )
    return items


NEQA_FULL = MultipleChoice(
    NAME,
    read_neqa_full,
    lambda folder, split: [Path(folder) / FILE],
    title="NeQA (full)",
    target_delimiter="",
    unit="question",
    group_field="rule",
    groups_key="rules",
    groups=RULES,
    protocol={"prompt": "the authors' zero-shot prompt", "choices": "' A' / ' B'"},
)
DECOMPOSITION = PairedQuestions(
    f"{NAME}-decomposition",
    read_decomposition,
    lambda folder, split: [Path(folder) / name for name in CONTROL],
    dataset=NAME,
    parts=("negated", "original", "negation"),
    twins=("negated", "original"),
    title="NeQA task decomposition",
    style="first-token",
    unit="item",
    headline=("negated.accuracy", "original.accuracy", "negation.accuracy"),
    protocol="negated: NeQA; original: the question without negation (answer the question); "
    "negation: are the two sentences the same or different (understand the negation).",
)

SUITE = register_suite(
    declared_suite(
        NEQA_FULL,
        DataSource.declared(__file__),
        tasks=(
            TaskEntry(
                NAME, NEQA_FULL.task, "NeQA full: 1,718 negated two-option questions, accuracy per negation rule"
            ),
            TaskEntry(
                DECOMPOSITION.name,
                DECOMPOSITION.task,
                "NeQA control set: negated vs original question vs same/different (task decomposition)",
            ),
        ),
        task_harness={DECOMPOSITION.name: paired_harness(DECOMPOSITION)},
        reader=read_neqa_full,
        order=75,
        groups=("negation-all",),
    )
)
