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

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from negkit.errors import InputFormatError, quoted
from negkit.io.textfiles import iter_json_objects
from negkit.kit.data.declared import declared_files
from negkit.kit.suites import DataSource, register_suite
from negkit.kit.suites.kinds import pairs_suite
from negkit.kit.tasks.pairs import MinimalPairs, SentencePair

#: The papers behind the data and protocol (``negkit cite``).
BIBTEX = r"""@article{warstadt2020,
  title = {{BLiMP}: The Benchmark of Linguistic Minimal Pairs for {E}nglish},
  author = {Warstadt, Alex and Parrish, Alicia and Liu, Haokun and Mohananey, Anhad and Peng, Wei and Wang, Sheng-Fu and Bowman, Samuel R.},
  journal = {Transactions of the Association for Computational Linguistics},
  volume = {8},
  pages = {377--392},
  year = {2020},
  url = {https://aclanthology.org/2020.tacl-1.25}
}"""

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


def _text(path: Path, line: int, record: Mapping[str, Any], name: str) -> str:
    value = record[name]
    if not isinstance(value, str) or not value.strip():
        raise InputFormatError(path, line, f"field {name!r}: expected a non-empty sentence, found {quoted(value, 40)}")
    return value


def read_blimp_paradigm(path: str | Path, paradigm: str | None = None) -> list[SentencePair]:
    """One paradigm file (``paradigm``: default its stem; a line whose ``UID`` names another paradigm is an error)."""
    path = Path(path)
    records = iter_json_objects(path, required=("sentence_good", "sentence_bad", "pairID"))
    return paradigm_pairs(path, paradigm or path.stem, records)


def paradigm_pairs(
    path: Path, paradigm: str, records: Iterable[tuple[int, Mapping[str, Any]]], limit: int | None = None
) -> list[SentencePair]:
    """The pairs of one paradigm's ``(line, record)`` lines (at most ``limit``, in file order), checked."""
    pairs: list[SentencePair] = []
    seen: set[str] = set()
    for line, record in records:
        if limit is not None and len(pairs) >= limit:
            break
        if record.get("UID", paradigm) != paradigm:
            raise InputFormatError(
                path, line, f"field 'UID': {quoted(record['UID'], 60)} is not this file's paradigm {paradigm!r}"
            )
        pair_id = record["pairID"]
        if isinstance(pair_id, bool) or not isinstance(pair_id, (str, int)) or not str(pair_id).strip():
            raise InputFormatError(path, line, f"field 'pairID': expected an id, found {quoted(pair_id, 40)}")
        pair_id = str(pair_id).strip()
        if pair_id in seen:
            raise InputFormatError(path, line, f"pairID {pair_id!r} appears twice")
        seen.add(pair_id)
        good, bad = _text(path, line, record, "sentence_good"), _text(path, line, record, "sentence_bad")
        pairs.append(SentencePair(f"blimp-{paradigm}-{pair_id}", paradigm, good, bad, {"pair_id": pair_id}))
    if not pairs:
        raise InputFormatError(path, None, "no minimal pairs")
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
    pairs_suite(
        BLIMP,
        DataSource(
            NAME,
            "github alexwarstadt/blimp data/PARADIGM.jsonl of the seven negation / NPI paradigms into "
            "DATA/blimp-negation/",
            licence="CC BY 4.0 (github alexwarstadt/blimp)",
            files=declared_files(Path(__file__).with_name("blimp_negation_files.json")),
            citation="warstadt2020",
        ),
        "BLiMP negation / NPI licensing: whole-sentence log-probability of each minimal pair (7 paradigms)",
        bibtex=BIBTEX,
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
_GUARD_FIELDS = ("sentence_good", "sentence_bad", "pairID")


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
        paradigm = path.name.removesuffix(".jsonl.gz")
        pairs += paradigm_pairs(path, paradigm, iter_json_objects(path, required=_GUARD_FIELDS), PER_PARADIGM)
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
    pairs_suite(
        GUARD,
        DataSource(
            GUARD_FOLDER,
            "github alexwarstadt/blimp data/PARADIGM.jsonl of the 60 paradigms without negation, gzipped, into "
            "DATA/training/blimp-all/",
            licence="CC BY 4.0 (github alexwarstadt/blimp)",
            files=declared_files(Path(__file__).with_name("blimp_guard_files.json")),
            citation="warstadt2020",
        ),
        "BLiMP without negation: 50 pairs of each of 60 paradigms, a guard against damage by negation training",
        bibtex=BIBTEX,
        reader=read_guard,
        order=61,
        default_run=False,
    )
)
