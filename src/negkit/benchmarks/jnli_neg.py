"""JNLI-Neg (Yoshida, Kato, Ogawa and Matsubara, NLP2025): Japanese NLI for negation understanding. Each original
JNLI pair (``original``, no negation) is augmented by inserting a Japanese negation cue into the predicate of the
premise (``p_neg``), the hypothesis (``h_neg``) or both (``p_neg_h_neg``), and relabelled by three annotators.
Three-way labels (entailment, neutral, contradiction).

One task, ``jnli-neg``, over the released validation split (1,363 instances; JNLI's test split is not public, so
``--split test`` reads it too). Declared as :data:`JNLI_NEG`, 3-way NLI scored by condition (:data:`BY_CONDITION`,
:mod:`negkit.kit.tasks.nli_conditions`): a language model scores the answer words ``entailment``,
``contradiction``, ``neutral`` after negkit's 3-way prompt (English instructions around the Japanese sentences), or
a classifier reads ``(premise, hypothesis)``. Accuracy overall (the headline) and by where the negation was
inserted, and the gap: accuracy on the original pairs minus accuracy on the negated ones. Intervals resample JNLI
sentence pairs (an original and its negated variants drawn together).

``jnli-neg-valid-v1.1.jsonl`` is JSON Lines: ``id``, ``jnli_sentence_pair_id``, ``pair_id_in_group``, ``type``,
``sentence1`` / ``sentence2`` (``{"sentence", "neg"}``), ``gold_label``, ``annotator_labels``; blank lines are
skipped.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal, get_args

from negkit.kit.data.nli import NLI_LABELS, NLIItem, NLILabel
from negkit.kit.data.rows import DataRow, Text, read_rows
from negkit.kit.suites import DataSource, register_suite
from negkit.kit.suites.kinds import declared_suite
from negkit.kit.suites.nli import THREE_WAY_ANSWERS, THREE_WAY_PROMPT
from negkit.kit.tasks.nli_conditions import ByCondition
from negkit.kit.tasks.nli_declared import NLIQuestions

NAME, FILE = "jnli-neg", "jnli-neg-valid-v1.1.jsonl"
#: Where the negation was inserted (``original``: nowhere, the control).
Type = Literal["original", "p_neg", "h_neg", "p_neg_h_neg"]
TYPES: tuple[str, ...] = get_args(Type)


class Sentence(DataRow):
    """A sentence of a pair (``neg``: where the negation was inserted, not read)."""

    sentence: Text


class Row(DataRow):
    """A line of ``jnli-neg-valid-v1.1.jsonl``."""

    id: int | str
    jnli_sentence_pair_id: int | str
    type: Type
    sentence1: Sentence
    sentence2: Sentence
    gold_label: NLILabel


def read_jnli_neg(folder: str | Path, split: str = "validation") -> list[NLIItem]:
    """The instances of ``FOLDER/jnli-neg-valid-v1.1.jsonl``; a bad line names the file and line."""
    return [
        NLIItem(
            f"{NAME}-{row.id}",
            row.sentence1.sentence,
            row.sentence2.sentence,
            row.gold_label,
            NAME,
            f"jnli-{row.jnli_sentence_pair_id}",
            row.type,
            line,
        )
        for line, row in read_rows(Path(folder) / FILE, Row)
    ]


def jnli_neg_files(folder: Path, split: str) -> list[Path]:
    """The one file :func:`read_jnli_neg` reads, whatever the split."""
    return [folder / FILE]


#: Accuracy by where the negation was inserted, and the gap: the original pairs minus the negated ones.
BY_CONDITION = ByCondition(
    "JNLI-Neg (validation)",
    TYPES,
    gap=(("original",), ("p_neg", "h_neg", "p_neg_h_neg")),
    labels=NLI_LABELS,
    unit="JNLI sentence pair",
)
#: JNLI-Neg's validation split asked 3-way; ``test``, ``valid`` and ``dev`` read it too (JNLI's test split is not
#: public).
JNLI_NEG = NLIQuestions(
    NAME,
    read_jnli_neg,
    jnli_neg_files,
    prompt=THREE_WAY_PROMPT,
    answers=THREE_WAY_ANSWERS,
    **BY_CONDITION.scoring(),
    splits=("validation",),
    split_aliases={alias: "validation" for alias in ("test", "valid", "dev")},
    protocol={"split_read": "validation (jnli-neg-valid-v1.1)", "gap": "original - negated"},
    description="JNLI-Neg: Japanese NLI with negation inserted in the premise, the hypothesis or both (3-way "
    "prompt or --classifier); accuracy by where",
)

SUITE = register_suite(
    declared_suite(
        JNLI_NEG,
        DataSource.declared(__file__),
        title="JNLI-Neg (Yoshida et al. 2025)",
        aliases=("jnli",),
        scorer_help="JNLI-Neg: accuracy by where negation was inserted from {item_id, prediction (label)} lines",
        order=200,
        groups=("negation-all",),
    )
)
