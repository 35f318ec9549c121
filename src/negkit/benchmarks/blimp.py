"""BLiMP's negation and NPI-licensing paradigms (Warstadt et al., 2020): seven paradigms of 1,000 minimal pairs,
asked as the LM Evaluation Harness's ``blimp_*`` tasks ask them (:mod:`negkit.kit.tasks.pairs`: each sentence
scored whole after the model's prefix token; the headline is the mean accuracy over the paradigms).

One JSON Lines file per paradigm (``PARADIGM.jsonl``), one pair per line with ``sentence_good``, ``sentence_bad``,
``UID`` (the paradigm), ``pairID``, ``field``, ``linguistics_term``. Item ids are ``blimp-PARADIGM-PAIRID``; a
malformed line raises :class:`~negkit.errors.InputFormatError` naming the file and the line.

Beside them, ``blimp-guard``: the 60 paradigms that are not about negation (the first 50 pairs of each, from
``training/blimp-all/PARADIGM.jsonl.gz``), asked the same way. Not a negation benchmark: a guard against damage to
general grammatical knowledge by negation training (docs/negation-training.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import islice
from pathlib import Path
from typing import Any

from negkit.errors import InputFormatError, quoted
from negkit.kit.data.rows import DataRow, Text, read_rows
from negkit.kit.suites import DataSource, register_suite
from negkit.kit.suites.kinds import declared_suite
from negkit.kit.tasks.pairs import MinimalPairs, SentencePair

NAME = "blimp-negation"
#: The seven negation / NPI-licensing paradigms, in the order negkit reports them (the files' names).
PARADIGMS: tuple[str, ...] = (
    "sentential_negation_npi_licensor_present",
    "sentential_negation_npi_scope",
    "only_npi_licensor_present",
    "only_npi_scope",
    "matrix_question_npi_licensor_present",
    "npi_present_1",
    "npi_present_2",
)


class Row(DataRow):
    """A line of a paradigm file (``UID``: the paradigm, where given)."""

    sentence_good: Text
    sentence_bad: Text
    pairID: int | Text
    UID: str | None = None


def read_blimp_paradigm(path: str | Path, paradigm: str | None = None, limit: int | None = None) -> list[SentencePair]:
    """The pairs of one paradigm file (at most ``limit``, in file order; ``paradigm``: default the file's stem); a
    line whose ``UID`` names another paradigm, or a pairID seen before, is an error."""
    path = Path(path)
    paradigm = paradigm or path.name.removesuffix(".gz").removesuffix(".jsonl")
    pairs: list[SentencePair] = []
    seen: set[str] = set()
    for line, row in islice(read_rows(path, Row), limit):
        if row.UID not in (None, paradigm):
            raise InputFormatError(
                path, line, f"field 'UID': {quoted(row.UID, 60)} is not this file's paradigm {paradigm!r}"
            )
        pair_id = str(row.pairID).strip()
        if pair_id in seen:
            raise InputFormatError(path, line, f"pairID {pair_id!r} appears twice")
        seen.add(pair_id)
        pairs.append(
            SentencePair(
                f"blimp-{paradigm}-{pair_id}", paradigm, row.sentence_good, row.sentence_bad, {"pair_id": pair_id}
            )
        )
    return pairs


def blimp_files(folder: str | Path, split: str = "test") -> list[Path]:
    """The paradigm files of ``folder`` negkit reads (the seven of :data:`PARADIGMS`, in that order)."""
    return [Path(folder) / f"{paradigm}.jsonl" for paradigm in PARADIGMS]


def read_blimp(folder: str | Path, split: str = "test") -> list[SentencePair]:
    """Every pair of the seven paradigms in ``folder``; a missing paradigm file is an error naming it."""
    pairs: list[SentencePair] = []
    for path in blimp_files(folder):
        if not path.is_file():
            raise InputFormatError(path, None, "no such file (a BLiMP negation paradigm; see the data folder's README)")
        pairs += read_blimp_paradigm(path)
    return pairs


def _named(record: Mapping[str, Any]) -> str | None:
    """A predictions line may name its pair by ``paradigm`` and ``pairID`` instead of ``item_id``."""
    return f"blimp-{record['paradigm']}-{record['pairID']}" if "paradigm" in record and "pairID" in record else None


BLIMP = MinimalPairs(
    NAME,
    read_blimp,
    blimp_files,
    title="BLiMP negation and NPI licensing",
    group_field="paradigm",
    groups_key="paradigms",
    groups=PARADIGMS,
    unit="BLiMP pair",
    harness_task="negkit_blimp_negation",
    item_id_from=_named,
)

SUITE = register_suite(
    declared_suite(
        BLIMP,
        DataSource.declared(Path(__file__).with_name("blimp_negation_files.json")),
        "BLiMP negation / NPI licensing: whole-sentence log-probability of each minimal pair (7 paradigms)",
        aliases=("blimp",),
        reader=read_blimp,
        order=60,
        groups=("negation-all",),
    )
)

GUARD_NAME = "blimp-guard"
GUARD_FOLDER = "training/blimp-all"
#: Pairs read from each paradigm.
PER_PARADIGM = 50


def guard_files(folder: str | Path, split: str = "test") -> list[Path]:
    """The paradigm files of ``folder`` (every ``*.jsonl.gz``, sorted)."""
    files = sorted(Path(folder).glob("*.jsonl.gz"))
    if not files:
        raise InputFormatError(Path(folder), None, "no BLiMP paradigm files (*.jsonl.gz)")
    return files


def read_guard(folder: str | Path, split: str = "test") -> list[SentencePair]:
    """The first :data:`PER_PARADIGM` pairs of every paradigm file of ``folder``."""
    pairs: list[SentencePair] = []
    for path in guard_files(folder):
        pairs += read_blimp_paradigm(path, limit=PER_PARADIGM)
    return pairs


GUARD = MinimalPairs(
    GUARD_NAME,
    read_guard,
    guard_files,
    title="BLiMP, the 60 paradigms without negation (a guard, not a negation result)",
    dataset=GUARD_FOLDER,
    group_field="paradigm",
    groups_key="paradigms",
    unit="BLiMP pair",
)

GUARD_SUITE = register_suite(
    declared_suite(
        GUARD,
        DataSource.declared(Path(__file__).with_name("blimp_guard_files.json")),
        "BLiMP without negation: 50 pairs of each of 60 paradigms, a guard against damage by negation training",
        reader=read_guard,
        order=61,
        default_run=False,
    )
)
