"""LMs are not naysayers (Truong, Baldwin, Verspoor, Cohn; *SEM 2023): the prompt sets of ``joey234/llm-neg-bench``
that test negation itself, three tasks:

- ``llm-neg-bench-mkrnq`` (the suite's main task), MKR-NQ: 2,200 negated commonsense queries ("Air doesn't have")
  whose ``completion`` lists the words that complete the *affirmative* query, so producing one after the negated query
  is wrong (``mkrnq_prompt.csv``; the ConceptNet relation from the row-aligned ``mkrnq_pos_prompt.csv``);
- ``llm-neg-bench-mwr``, MWR: 9,182 antonym ("greed is an antonym of") and synonym queries whose lists hold the wrong
  answers (``mwr_test_prompt.csv``, the first of the three wordings);
- ``llm-neg-bench-sar``, SAR: 2,000 word pairs, antonym or synonym (``sar_test_prompt.csv``; ``--split validation``:
  the 1,000 of ``sar_dev_prompt.csv``), each class (`` antonym`` / `` synonym``) scored as the continuation of the
  prompt as written, accuracy: the authors' ``classification_acc`` (``eval_pipeline/models.py``). Chance 0.5.

MKR-NQ and MWR (:mod:`negkit.kit.tasks.completion`): the authors' ``_evaluate_hitrate`` generates one token with five
beams, stop words and punctuation banned, and scores the weighted hit rate WHR@k of the five words (**lower is
better**: a hit is a wrong answer). negkit's models give greedy text, not the five best tokens, so negkit scores WHR@1
only: the first content word of a greedy continuation (six tokens; function words skipped where the authors ban stop
words; cleaned with the authors' ``clean_word``; compared with the list as written, as their code does). The README
describes WHR as weighted by each word's probability; the authors' code weights the five words by one number (the
step's largest probability, the same for every beam), so its WHR@k is the share of hits among the first k words;
with one word the two agree. Each item is also asked in its opposite form (``opposite_sent``: "Air has", "greed is a
synonym of"), where a hit is the right answer: ``opposite.hit_at_1`` says whether the model knows the fact, and
``same_word`` whether it gives the same word with and without the negation. The primary metric is
``query.miss_at_1`` = 1 - WHR@1 (negkit's primary metrics are higher-is-better; SAR's is ``acc``). Prompts are given
without the leading space of the files (a GPT-2 habit). Intervals resample items.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field

from negkit.errors import InputFormatError
from negkit.kit.data.rows import DataRow, Strings, Text, index_of, read_rows
from negkit.kit.render.grouped import grouped_figures
from negkit.kit.suites import DataSource, TaskEntry, register_suite
from negkit.kit.suites.description import SuiteDescription
from negkit.kit.suites.kinds import choice_harness
from negkit.kit.tasks.choice import ChoiceQuestion, MultipleChoice, choice_figures_of
from negkit.kit.tasks.completion import CompletionForm, CompletionItem, Completions
from negkit.kit.view import Figure

NAME = "llm-neg-bench"
MKRNQ, MKRNQ_RELATIONS, MWR = "mkrnq_prompt.csv", "mkrnq_pos_prompt.csv", "mwr_test_prompt.csv"
SAR = {"test": "sar_test_prompt.csv", "validation": "sar_dev_prompt.csv"}


class Query(DataRow):
    """A row of the MKR-NQ and MWR prompt files: the query, its opposite form and the words it is checked against."""

    prompt: Text
    opposite_sent: Text
    completion: Annotated[Strings, Field(min_length=1)]

    def forms(self) -> dict[str, CompletionForm]:
        return {
            "query": CompletionForm(self.prompt.strip(), self.completion),
            "opposite": CompletionForm(self.opposite_sent.strip(), self.completion),
        }


class Relation(DataRow):
    """A row of ``mkrnq_pos_prompt.csv``: the ConceptNet relation of the MKR-NQ row with the same completion."""

    relation: str
    #: Compared with the MKR-NQ row's list (a text that is not a list literal matches none).
    completion: Annotated[Strings | str, Field(union_mode="left_to_right")]


class Classes(DataRow):
    """A row of the SAR prompt files."""

    prompt: Text
    classes: Annotated[Strings, Field(min_length=2)]
    answer_index: Annotated[int, index_of("classes")]


def read_mkrnq(folder: str | Path, split: str = "test") -> list[CompletionItem]:
    """MKR-NQ: the negated query and its affirmative twin, with the ConceptNet relation of the aligned file."""
    path, aligned = Path(folder) / MKRNQ, Path(folder) / MKRNQ_RELATIONS
    rows, relations = list(read_rows(path, Query)), list(read_rows(aligned, Relation))
    if len(relations) != len(rows):
        raise InputFormatError(
            aligned, None, f"{len(relations)} rows for the {len(rows)} of {MKRNQ} (aligned row by row)"
        )
    items = []
    for (line, row), (other_line, other) in zip(rows, relations):
        if other.completion != row.completion:
            raise InputFormatError(
                aligned, other_line, f"row does not match {MKRNQ} line {line} (another completion list)"
            )
        items.append(CompletionItem(f"mkrnq-{line - 1}", other.relation.strip() or "?", row.forms()))
    return items


def read_mwr(folder: str | Path, split: str = "test") -> list[CompletionItem]:
    """MWR: the antonym (or synonym) query and its opposite, grouped by the query's relation."""
    return [
        CompletionItem(
            f"mwr-{line - 1}", "synonym query" if "synonym of" in row.prompt else "antonym query", row.forms()
        )
        for line, row in read_rows(Path(folder) / MWR, Query)
    ]


def read_sar(folder: str | Path, split: str = "test") -> list[ChoiceQuestion]:
    """SAR: ``prompt``, ``classes`` (a list literal) and ``answer_index``, as written."""
    return [
        ChoiceQuestion(f"sar-{split}-{line - 1}", row.prompt, row.classes, row.answer_index)
        for line, row in read_rows(Path(folder) / SAR[split], Classes)
    ]


PROTOCOL = (
    "Hit: the first content word of a greedy continuation is in the item's list (query: a wrong answer, lower "
    "is better, the paper's WHR@1; opposite: the right answer of the opposite query); same word: both forms "
    "give the same word."
)
MKRNQ_SPEC = Completions(
    f"{NAME}-mkrnq",
    read_mkrnq,
    lambda folder, split: [Path(folder) / MKRNQ, Path(folder) / MKRNQ_RELATIONS],
    title="MKR-NQ (negated knowledge queries)",
    dataset=NAME,
    group_field="relation",
    groups_key="relations",
    misses=("query",),
    headline=("query.miss_at_1", "query.hit_at_1", "opposite.hit_at_1", "same_word"),
    protocol=PROTOCOL,
)
MWR_SPEC = Completions(
    f"{NAME}-mwr",
    read_mwr,
    lambda folder, split: [Path(folder) / MWR],
    title="MWR (antonym and synonym queries)",
    dataset=NAME,
    group_field="relation",
    groups_key="relations",
    groups=("antonym query", "synonym query"),
    misses=("query",),
    headline=("query.miss_at_1", "query.hit_at_1", "opposite.hit_at_1", "same_word"),
    protocol=PROTOCOL,
)
SAR_SPEC = MultipleChoice(
    f"{NAME}-sar",
    read_sar,
    lambda folder, split: [Path(folder) / SAR[split]],
    title="SAR (antonym or synonym)",
    dataset=NAME,
    target_delimiter="",
    unit="word pair",
    splits=("test", "validation"),
    protocol={"prompt": "as written", "choices": "classes as written"},
)


def _figures(metrics: dict[str, Any], records: Sequence[dict[str, Any]] | None = None) -> list[Figure]:
    """SAR's figures (choice metrics) or the word completions' (MKR-NQ, MWR), by the metrics a task has."""
    figures = choice_figures_of(SAR_SPEC) if "acc" in metrics else grouped_figures("word completions", "relations")
    return figures(metrics, records)


SUITE = register_suite(
    SuiteDescription(
        name=NAME,
        title="LMs are not naysayers (llm-neg-bench)",
        tasks=(
            TaskEntry(
                MKRNQ_SPEC.name,
                MKRNQ_SPEC.task,
                "MKR-NQ: negated knowledge queries, WHR@1 of a greedy word (lower is better)",
            ),
            TaskEntry(
                MWR_SPEC.name, MWR_SPEC.task, "MWR: antonym / synonym queries, WHR@1 of a greedy word (lower is better)"
            ),
            TaskEntry(SAR_SPEC.name, SAR_SPEC.task, "SAR: antonym or synonym, each class scored as a continuation"),
        ),
        main_task=MKRNQ_SPEC.name,
        data=DataSource.declared(__file__),
        reader=read_mkrnq,
        interval_unit="item",
        primary_metric=None,  # each task's first headline metric
        figures=_figures,
        task_harness={SAR_SPEC.name: choice_harness(SAR_SPEC)},
        harness_none="MKR-NQ and MWR look up the first content word of a greedy continuation (function words "
        "skipped, cleaned as the authors' clean_word) in a list of words (WHR@1), and the LM Evaluation Harness's "
        "generate_until metrics compare the whole generation with its target",
        order=125,
        groups=("negation-all",),
        scorer_help='score MKR-NQ predictions: JSON Lines {"item_id": "mkrnq-1", "query": "generated text", "opposite": '
        '"generated text"}, or negkit eval\'s samples file',
    )
)
