"""BLiMP's negation and NPI-licensing paradigms (Warstadt et al., 2020): minimal pairs of sentences.

One JSON Lines file per paradigm (``PARADIGM.jsonl``, 1,000 pairs each in the release), one pair per line with
``sentence_good``, ``sentence_bad``, ``UID`` (the paradigm), ``pairID``, ``field``, ``linguistics_term`` and, for
some paradigms, the shared prefix of the pair (``one_prefix_prefix``; or ``two_prefix_prefix_good`` /
``two_prefix_prefix_bad`` and ``two_prefix_word``). A model is right on a pair when it gives the good sentence the
higher log-probability.

Malformed lines raise :class:`~negkit.errors.InputFormatError` naming the file and the line.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from negkit.errors import InputFormatError, quoted
from negkit.io.textfiles import iter_json_objects

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
_REQUIRED = ("sentence_good", "sentence_bad", "pairID")


@dataclass(frozen=True)
class MinimalPair:
    """One BLiMP pair: the acceptable sentence, the unacceptable one, and where it comes from."""

    item_id: str
    paradigm: str
    pair_id: str
    good: str
    bad: str
    field: str = ""
    linguistics_term: str = ""


def _text(path: Path, line: int, record: dict[str, Any], name: str) -> str:
    value = record[name]
    if not isinstance(value, str) or not value.strip():
        raise InputFormatError(path, line, f"field {name!r}: expected a non-empty sentence, found {quoted(value, 40)}")
    return value


def read_blimp_paradigm(path: str | Path, paradigm: str | None = None) -> list[MinimalPair]:
    """Read one paradigm file; item ids are ``blimp-PARADIGM-PAIRID``. ``paradigm`` defaults to the file's stem,
    and a line whose ``UID`` names another paradigm is an error."""
    path = Path(path)
    paradigm = paradigm or path.stem
    pairs: list[MinimalPair] = []
    seen: set[str] = set()
    for line, record in iter_json_objects(path, required=_REQUIRED):
        uid = record.get("UID", paradigm)
        if uid != paradigm:
            raise InputFormatError(path, line, f"field 'UID': {quoted(uid, 60)} is not this file's paradigm {paradigm!r}")
        pair_id = record["pairID"]
        if isinstance(pair_id, bool) or not isinstance(pair_id, (str, int)) or not str(pair_id).strip():
            raise InputFormatError(path, line, f"field 'pairID': expected an id, found {quoted(pair_id, 40)}")
        pair_id = str(pair_id).strip()
        if pair_id in seen:
            raise InputFormatError(path, line, f"pairID {pair_id!r} appears twice")
        seen.add(pair_id)
        good, bad = _text(path, line, record, "sentence_good"), _text(path, line, record, "sentence_bad")
        pairs.append(MinimalPair(f"blimp-{paradigm}-{pair_id}", paradigm, pair_id, good, bad,
                                 str(record.get("field") or ""), str(record.get("linguistics_term") or "")))
    if not pairs:
        raise InputFormatError(path, None, "no minimal pairs")
    return pairs


def blimp_files(folder: str | Path) -> list[Path]:
    """The paradigm files of ``folder`` negkit reads (the seven of :data:`PARADIGMS`, in that order)."""
    folder = Path(folder)
    return [folder / f"{paradigm}.jsonl" for paradigm in PARADIGMS]


def read_blimp(folder: str | Path) -> list[MinimalPair]:
    """Every pair of the seven paradigms in ``folder`` (``blimp-negation/``), paradigm by paradigm; a missing
    paradigm file is an error naming it."""
    pairs: list[MinimalPair] = []
    for path in blimp_files(folder):
        if not path.is_file():
            raise InputFormatError(path, None, "no such file (a BLiMP negation paradigm; see the data folder's README)")
        pairs += read_blimp_paradigm(path)
    return pairs
