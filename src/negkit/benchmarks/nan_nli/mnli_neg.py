"""MNLI-neg: MNLI's own pairs with negation, the first column of the NaN-NLI paper's Table 5.

Truong et al. (2022) compare NaN-NLI with "MNLI-neg", the MNLI pairs that contain negation. MNLI itself is not part of
negkit's data (its text comes from the MNLI release, which a user downloads); :func:`extract_mnli_neg` selects the
pairs from a copy of it, :func:`write_mnli_neg` writes them as ``mnli_neg.jsonl`` and the ``mnli-neg`` task scores
them (:mod:`negkit.benchmarks.nan_nli.mnli_neg_task`).

**The definition** (negkit's reading of the paper's "MNLI pairs with negation"). A pair is in MNLI-neg when its
premise carries a negation cue (``side="premise"``, the default: every NaN-NLI premise carries negation, and so does
every premise of the comparison set); ``side="hypothesis"``, ``"either"`` or ``"both"`` choose on the hypothesis, on
one of the two, or on both. A cue is found by word, not by a trained cue detector: a token equal to one of
:data:`DEFAULT_CUES` (case-insensitive; ``’`` read as ``'``), a token ending in ``n't`` (``don't``, ``can't``,
``won't``; when the list holds ``n't``) or a multi-word cue matched as consecutive tokens (``by no means``, from a
cue list given as a file). Pairs without a gold label (MNLI's ``-``: annotators did not agree) are left out and
counted.

**The MNLI files read** (:func:`read_mnli`): the release's JSON Lines (``multinli_1.0_dev_matched.jsonl``: fields
``sentence1``, ``sentence2``, ``gold_label``, ``pairID``, ``genre``), its tab-separated ``.txt`` and GLUE's
``dev_matched.tsv`` (a header naming ``sentence1``, ``sentence2`` and ``gold_label``), and the Hugging Face layout
(``premise``, ``hypothesis``, ``label`` 0 entailment / 1 neutral / 2 contradiction, -1 unlabelled). A record is
read against the declared row type :class:`MnliRow` (either spelling of its fields); ``mnli_neg.jsonl`` against
:class:`MnliNegRow` (:mod:`negkit.kit.data.rows`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, ClassVar

from pydantic import AfterValidator, AliasChoices, BeforeValidator, Field, field_validator, model_validator

from negkit.errors import InputFormatError, NegkitError, quoted
from negkit.io.atomic import atomic_write_jsonl
from negkit.io.textfiles import iter_json_objects, read_text
from negkit.kit.data.nli import NLI_LABELS, NLIItem
from negkit.kit.data.rows import DataRow, Text, read_rows, validate_rows

#: Negation cues found by word: the syntactic cues of the *SEM 2012 (CD-SCO) guidelines (``n't``: any token ending
#: in it).
DEFAULT_CUES: tuple[str, ...] = (
    "not",
    "n't",
    "no",
    "never",
    "nothing",
    "nobody",
    "none",
    "nowhere",
    "neither",
    "nor",
    "without",
    "cannot",
)
#: Which sentence must carry a cue.
SIDES: tuple[str, ...] = ("premise", "hypothesis", "either", "both")
#: The Hugging Face layout's integer labels.
HF_LABELS: dict[int, str] = {0: "entailment", 1: "neutral", 2: "contradiction"}
NO_LABEL = "-"
_TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z]+)*")


@dataclass(frozen=True)
class MnliPair:
    """One MNLI pair as read (``row``: its 1-based line), with the cues found in each sentence."""

    pair_id: str
    premise: str
    hypothesis: str
    label: str
    genre: str = ""
    row: int = 0
    premise_cues: tuple[str, ...] = field(default_factory=tuple)
    hypothesis_cues: tuple[str, ...] = field(default_factory=tuple)


def tokens(text: str) -> list[str]:
    """Lower-case word tokens (``’`` read as ``'``; ``don't`` stays one token)."""
    return _TOKEN.findall(text.lower().replace("\u2019", "'"))


def read_cues(path: str | Path) -> tuple[str, ...]:
    """A cue list, one cue per line (blank lines and ``#`` comments skipped; a cue of several words is matched as
    consecutive tokens; an entry with ``#`` inside, a discontinuous cue such as ``neither#nor``, is skipped)."""
    cues = []
    for line in read_text(path, "cue list").splitlines():
        cue = line.strip().lower()
        if cue and not cue.startswith("#") and "#" not in cue:
            cues.append(cue)
    if not cues:
        raise InputFormatError(Path(path), None, "no cues in the cue list")
    return tuple(dict.fromkeys(cues))


def find_cues(text: str, cues: Sequence[str] = DEFAULT_CUES) -> tuple[str, ...]:
    """The cues of ``text`` in order of appearance (``n't`` for a token ending in it)."""
    words = tokens(text)
    single = {cue for cue in cues if " " not in cue}
    multi = [tuple(tokens(cue)) for cue in cues if " " in cue]
    found = []
    for index, word in enumerate(words):
        if word in single:
            found.append(word)
        elif word.endswith("n't") and "n't" in single:
            found.append("n't")
        for cue in multi:
            if cue and tuple(words[index : index + len(cue)]) == cue:
                found.append(" ".join(cue))
    return tuple(found)


def _mnli_label(value: Any) -> Any:
    """An MNLI gold label as negkit names it: an NLI label or ``-`` (text), or the Hugging Face layout's integer."""
    if isinstance(value, int) and not isinstance(value, bool):
        if value == -1:
            return NO_LABEL
        if value in HF_LABELS:
            return HF_LABELS[value]
    elif isinstance(value, str) and (value.strip() in NLI_LABELS or value.strip() == NO_LABEL):
        return value.strip()
    raise ValueError(f"gold label {quoted(str(value), 30)} is not an NLI label")


#: A sentence: a non-blank string, read without its surrounding white space.
Sentence = Annotated[Text, AfterValidator(str.strip)]
#: An MNLI gold label (:func:`_mnli_label`): ``entailment``, ``neutral``, ``contradiction`` or ``-``.
GoldLabel = Annotated[str, BeforeValidator(_mnli_label)]


class MnliRow(DataRow):
    """One pair of an MNLI file, under either spelling of its fields (the release's ``sentence1``, ``sentence2``,
    ``gold_label``, ``pairID``; the Hugging Face layout's ``premise``, ``hypothesis``, ``label``, ``idx``; the
    first when a record has both)."""

    #: The two spellings of each required field.
    SPELLINGS: ClassVar[tuple[tuple[str, str], ...]] = (
        ("sentence1", "premise"),
        ("sentence2", "hypothesis"),
        ("gold_label", "label"),
    )

    premise: Sentence = Field(validation_alias=AliasChoices("sentence1", "premise"))
    hypothesis: Sentence = Field(validation_alias=AliasChoices("sentence2", "hypothesis"))
    label: GoldLabel = Field(validation_alias=AliasChoices("gold_label", "label"))
    pair_id: str | int | None = Field(None, validation_alias=AliasChoices("pairID", "idx"))
    genre: str = ""

    @model_validator(mode="before")
    @classmethod
    def _spelled(cls, record: Any) -> Any:
        for names in cls.SPELLINGS:
            if isinstance(record, dict) and not any(name in record for name in names):
                raise ValueError(f"missing field {' or '.join(repr(name) for name in names)}")
        return record

    def to_pair(self, line: int) -> MnliPair:
        """The pair read on ``line`` (the line is its id when the record names none)."""
        pair_id = str(self.pair_id) if "pair_id" in self.model_fields_set else str(line)
        return MnliPair(pair_id, self.premise, self.hypothesis, self.label, self.genre, line)


class MnliNegRow(DataRow):
    """One line of ``mnli_neg.jsonl`` (:func:`write_mnli_neg`): a labelled pair and its item id."""

    item_id: Text
    premise: Sentence
    hypothesis: Sentence
    label: GoldLabel

    @field_validator("label")
    @classmethod
    def _labelled(cls, label: str) -> str:
        if label == NO_LABEL:
            raise ValueError("a pair without a gold label ('-')")
        return label


def _tsv_records(path: Path) -> Iterable[tuple[int, dict[str, Any]]]:
    """Rows of a tab-separated MNLI file (fields split on tabs, no quoting: the parses hold quotes)."""
    lines = read_text(path, "MNLI file").splitlines()
    header = lines[0].split("\t") if lines else []
    missing = [name for name in ("sentence1", "sentence2", "gold_label") if name not in header]
    if missing:
        raise InputFormatError(path, 1, f"the header names no {', '.join(missing)} (an MNLI .txt or GLUE .tsv file)")
    for number, text in enumerate(lines[1:], start=2):
        if not text.strip():
            continue
        values = text.split("\t")
        if len(values) < len(header):
            raise InputFormatError(path, number, f"expected {len(header)} tab-separated fields, found {len(values)}")
        yield number, dict(zip(header, values))


def read_mnli(path: str | Path) -> list[MnliPair]:
    """Every pair of an MNLI file (JSON Lines, ``.txt`` or ``.tsv``; see the module documentation)."""
    path = Path(path)
    if path.suffix in (".jsonl", ".json"):
        records: Iterable[tuple[int, dict[str, Any]]] = iter_json_objects(path)
    else:
        records = _tsv_records(path)
    pairs = [
        row.to_pair(line)
        for line, row in validate_rows(records, MnliRow, path, cells=path.suffix not in (".jsonl", ".json"))
    ]
    if not pairs:
        raise InputFormatError(path, None, "no MNLI pairs")
    return pairs


def _keep(premise: bool, hypothesis: bool, side: str) -> bool:
    return {
        "premise": premise,
        "hypothesis": hypothesis,
        "either": premise or hypothesis,
        "both": premise and hypothesis,
    }[side]


def extract_mnli_neg(
    pairs: Sequence[MnliPair], side: str = "premise", cues: Sequence[str] = DEFAULT_CUES
) -> tuple[list[MnliPair], dict[str, Any]]:
    """The pairs with negation on ``side`` (one of :data:`SIDES`), their cues filled in, and a summary: pairs
    read, left out for want of a gold label, kept, kept per label and per side carrying a cue."""
    if side not in SIDES:
        raise NegkitError(f"unknown side {side!r}; choose one of {', '.join(SIDES)}")
    kept = []
    unlabelled = 0
    for pair in pairs:
        if pair.label == NO_LABEL:
            unlabelled += 1
            continue
        found_premise, found_hypothesis = find_cues(pair.premise, cues), find_cues(pair.hypothesis, cues)
        if _keep(bool(found_premise), bool(found_hypothesis), side):
            kept.append(
                MnliPair(
                    pair.pair_id,
                    pair.premise,
                    pair.hypothesis,
                    pair.label,
                    pair.genre,
                    pair.row,
                    found_premise,
                    found_hypothesis,
                )
            )
    labels = Counter(pair.label for pair in kept)
    summary = {
        "side": side,
        "read": len(pairs),
        "unlabelled": unlabelled,
        "kept": len(kept),
        "labels": {label: labels[label] for label in NLI_LABELS},
        "negation_in": {
            "premise": sum(1 for pair in kept if pair.premise_cues),
            "hypothesis": sum(1 for pair in kept if pair.hypothesis_cues),
            "both": sum(1 for pair in kept if pair.premise_cues and pair.hypothesis_cues),
        },
        "cues": dict(Counter(cue for pair in kept for cue in (*pair.premise_cues, *pair.hypothesis_cues))),
    }
    return kept, summary


def write_mnli_neg(path: str | Path, pairs: Sequence[MnliPair]) -> int:
    """Write ``pairs`` as ``mnli_neg.jsonl`` lines (item_id, premise, hypothesis, label, pairID, genre, row,
    premise_cues, hypothesis_cues), its folder made if needed; returns the count."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    return atomic_write_jsonl(
        path,
        (
            {
                "item_id": f"mnli-neg-{pair.pair_id}",
                "premise": pair.premise,
                "hypothesis": pair.hypothesis,
                "label": pair.label,
                "pairID": pair.pair_id,
                "genre": pair.genre,
                "row": pair.row,
                "premise_cues": list(pair.premise_cues),
                "hypothesis_cues": list(pair.hypothesis_cues),
            }
            for pair in pairs
        ),
    )


def read_mnli_neg(path: str | Path) -> list[NLIItem]:
    """The items of an ``mnli_neg.jsonl`` written by :func:`write_mnli_neg` (suite ``mnli-neg``)."""
    path = Path(path)
    items = []
    seen: set[str] = set()
    for line, row in read_rows(path, MnliNegRow, "jsonl", allow_empty=True):
        if row.item_id in seen:
            raise InputFormatError(path, line, f"item_id {quoted(row.item_id, 40)} appears twice")
        seen.add(row.item_id)
        items.append(
            NLIItem(
                item_id=row.item_id,
                premise=row.premise,
                hypothesis=row.hypothesis,
                label=row.label,
                suite="mnli-neg",
                premise_id=row.item_id,
            )
        )
    if not items:
        raise InputFormatError(path, None, "no pairs (write the file with negkit nan-nli mnli-neg)")
    return items
