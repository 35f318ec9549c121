"""MoNLI (Geiger, Richardson and Potts, BlackboxNLP 2020): lexical entailment under negation. One noun of an SNLI
premise is swapped for its hypernym or hyponym (WordNet); without negation (PMoNLI, 1,476 pairs) the context is
upward monotone, so "a dog" entails "a mammal"; under negation (NMoNLI, every premise has "not" or "n't") it is
downward monotone and the entailment flips: "does not own a mammal" entails "does not own a dog". Two-way labels,
``entailment`` / ``neutral``.

One task, ``monli``: the NMoNLI test split (200 pairs, the paper's split; NMoNLI train is the paper's inoculation
data and is never scored) beside PMoNLI as its no-negation control. Headline: NMoNLI accuracy, and the gap
(PMoNLI accuracy minus NMoNLI accuracy). Asked as 2-way NLI (:mod:`negkit.kit.tasks.nli_conditions`): a language
model scores the answer words ``yes`` (entailment) and ``no`` (neutral) after :data:`PROMPT`; a classifier's
contradiction counts as neutral (not entailed). Intervals resample the sentence pair: each pair occurs in both
directions with opposite labels, and the two directions are drawn together.

Files (JSON Lines): ``nmonli_test.jsonl``, ``pmonli.jsonl``, keys ``sentence1``, ``sentence2``, ``gold_label``,
``sentence1_lex``, ``sentence2_lex``, ``depth``. The 200 NMoNLI test pairs are also wrapped as prompts in
LLM-Neg-Bench's ``monli_*`` files (an overlap, not a second result).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from negkit.kit.data.nli import NLIItem
from negkit.kit.data.rows import DataRow, Text, read_rows
from negkit.kit.metrics.nli import to_binary
from negkit.kit.suites import DataSource, register_suite
from negkit.kit.suites.description import HarnessExport, SuiteDescription, TaskEntry
from negkit.kit.suites.nli import label_writer
from negkit.kit.tasks.nli_conditions import ConditionNLITask, condition_figures

NAME = "monli"
#: Condition -> file: the negated test split and its no-negation control.
FILES: dict[str, str] = {"nmonli": "nmonli_test.jsonl", "pmonli": "pmonli.jsonl"}
LABELS: tuple[str, str] = ("entailment", "neutral")
PROMPT = (
    "Premise: {premise}\nHypothesis: {hypothesis}\nDoes the premise entail the hypothesis? Answer yes or no.\nAnswer:"
)


class Row(DataRow):
    """A line of a MoNLI file."""

    sentence1: Text
    sentence2: Text
    gold_label: Literal["entailment", "neutral"]


def read_monli_file(path: Path, condition: str) -> list[NLIItem]:
    """The pairs of one MoNLI file (``condition``: nmonli or pmonli); a bad line names the file and line."""
    items = []
    for line, row in read_rows(path, Row):
        premise, hypothesis = row.sentence1, row.sentence2
        unit = " || ".join(sorted((premise, hypothesis)))  # both directions of a pair resampled together
        items.append(NLIItem(f"{condition}-{line}", premise, hypothesis, row.gold_label, NAME, unit, condition, line))
    return items


def read_monli(folder: str | Path, split: str = "test") -> list[NLIItem]:
    """NMoNLI test, then PMoNLI."""
    return [item for condition, file in FILES.items() for item in read_monli_file(Path(folder) / file, condition)]


class MoNLITask(ConditionNLITask):
    """NMoNLI test with PMoNLI as its control, 2-way."""

    name = dataset = NAME
    title = "MoNLI: NMoNLI (negated) and PMoNLI (control)"
    prompt = PROMPT
    answers = {"yes": "entailment", "no": "neutral"}
    labels = LABELS
    conditions = tuple(FILES)
    gap = (("pmonli",), ("nmonli",))
    headline = "conditions.nmonli.acc"
    interval_unit = "MoNLI sentence pair"
    splits = ("test",)
    prediction_words = {"yes": "entailment", "no": "neutral", "not_entailment": "neutral"}

    def read(self, folder: Path, split: str) -> list[NLIItem]:
        return read_monli(folder, split)

    def files(self, folder: Path, split: str) -> list[Path]:
        return [folder / file for file in FILES.values()]

    def _fit_label(self, label: str) -> str:
        return "entailment" if to_binary(label) == "entailment" else "neutral"

    def config(self) -> dict[str, Any]:
        return super().config() | {"labels": list(LABELS), "control": "pmonli", "gap": "pmonli acc - nmonli acc"}


SUITE = register_suite(
    SuiteDescription(
        name=NAME,
        title="MoNLI (Geiger et al. 2020)",
        tasks=(
            TaskEntry(
                NAME,
                MoNLITask,
                "MoNLI: lexical entailment under negation (NMoNLI test) and without it (PMoNLI), 2-way yes/no "
                "prompt or --classifier; accuracy and the gap",
                classifier=True,
            ),
        ),
        main_task=NAME,
        data=DataSource.declared(__file__),
        reader=read_monli,
        scorer_help="MoNLI: accuracy on NMoNLI and PMoNLI and the gap from {item_id, prediction (label)} lines",
        interval_unit=MoNLITask.interval_unit,
        primary_metric=MoNLITask.headline,
        figures=condition_figures,
        harness=HarnessExport(("negkit_monli",), label_writer("load_monli"), loaders={"load_monli": NAME}),
        order=190,
        groups=("negation-all",),
    )
)
