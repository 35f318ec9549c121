"""MoNLI (Geiger, Richardson and Potts, BlackboxNLP 2020): lexical entailment under negation. One noun of an SNLI
premise is swapped for its hypernym or hyponym (WordNet); without negation (PMoNLI, 1,476 pairs) the context is
upward monotone, so "a dog" entails "a mammal"; under negation (NMoNLI, every premise has "not" or "n't") it is
downward monotone and the entailment flips: "does not own a mammal" entails "does not own a dog". Two-way labels,
``entailment`` / ``neutral``.

One task, ``monli``: the NMoNLI test split (200 pairs, the paper's split; NMoNLI train is the paper's inoculation
data and is never scored) beside PMoNLI as its no-negation control. Headline: NMoNLI accuracy, and the gap
(PMoNLI accuracy minus NMoNLI accuracy). Declared as :data:`MONLI`, 2-way NLI scored by condition
(:data:`BY_CONDITION`, :mod:`negkit.kit.tasks.nli_conditions`): a language model scores the answer words ``yes``
(entailment) and ``no`` (neutral) after :data:`PROMPT`; a classifier's contradiction counts as neutral (not
entailed). Intervals resample the sentence pair: each pair occurs in both
directions with opposite labels, and the two directions are drawn together.

Files (JSON Lines): ``nmonli_test.jsonl``, ``pmonli.jsonl``, keys ``sentence1``, ``sentence2``, ``gold_label``,
``sentence1_lex``, ``sentence2_lex``, ``depth``. The 200 NMoNLI test pairs are also wrapped as prompts in
LLM-Neg-Bench's ``monli_*`` files (an overlap, not a second result).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from negkit.kit.data.nli import NLIItem
from negkit.kit.data.rows import DataRow, Text, read_rows
from negkit.kit.metrics.nli import to_binary
from negkit.kit.suites import DataSource, register_suite
from negkit.kit.suites.kinds import declared_suite
from negkit.kit.tasks.nli_conditions import ByCondition
from negkit.kit.tasks.nli_declared import NLIQuestions

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


def monli_files(folder: Path, split: str) -> list[Path]:
    """The two files :func:`read_monli` reads."""
    return [folder / file for file in FILES.values()]


def two_way(label: str) -> str:
    """A 3-way label read on MoNLI's labels: anything but entailment is neutral (not entailed)."""
    return "entailment" if to_binary(label) == "entailment" else "neutral"


#: NMoNLI test with PMoNLI as its control, scored by condition; the headline is NMoNLI accuracy.
BY_CONDITION = ByCondition(
    "MoNLI: NMoNLI (negated) and PMoNLI (control)",
    tuple(FILES),
    gap=(("pmonli",), ("nmonli",)),
    labels=LABELS,
    headline="conditions.nmonli.acc",
    unit="MoNLI sentence pair",
)
#: MoNLI asked 2-way: ``yes`` (entailment) or ``no`` (neutral).
MONLI = NLIQuestions(
    NAME,
    read_monli,
    monli_files,
    prompt=PROMPT,
    answers={"yes": "entailment", "no": "neutral"},
    **BY_CONDITION.scoring(),
    fit_label=two_way,
    prediction_words={"yes": "entailment", "no": "neutral", "not_entailment": "neutral"},
    protocol={"labels": list(LABELS), "control": "pmonli", "gap": "pmonli acc - nmonli acc"},
    description="MoNLI: lexical entailment under negation (NMoNLI test) and without it (PMoNLI), 2-way yes/no "
    "prompt or --classifier; accuracy and the gap",
)

SUITE = register_suite(
    declared_suite(
        MONLI,
        DataSource.declared(__file__),
        title="MoNLI (Geiger et al. 2020)",
        scorer_help="MoNLI: accuracy on NMoNLI and PMoNLI and the gap from {item_id, prediction (label)} lines",
        order=190,
        groups=("negation-all",),
    )
)
