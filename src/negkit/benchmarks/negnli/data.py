"""NegNLI: the NLI pairs with negation of Hossain et al. (2020), from MNLI, SNLI (3-way) and RTE (2-way).

Each file (``MNLI.txt``, ``SNLI.txt``, ``RTE.txt``) is tab-separated with the header ``index, Text, Hypothesis,
gold_label`` and one pair per line, no quoting. The released files are Windows-1252 text with CRLF line ends (a
few accented letters and curly quotes); negkit reads UTF-8 when the bytes are UTF-8 and Windows-1252 otherwise.
Labels: ``contradiction`` / ``entailment`` / ``neutral`` (MNLI, SNLI), ``entailment`` / ``not_entailment`` (RTE).

The rows come in threes made from one original pair: negation added to the premise (row ``3k``), to the
hypothesis (``3k + 1``), to both (``3k + 2``); the reader checks that a triple shares its texts that way
(premise of ``3k`` = premise of ``3k + 2``, hypothesis of ``3k + 1`` = hypothesis of ``3k + 2``) and then gives
its three items the same ``premise_id`` (the unit intervals resample) and ``condition`` (``premise``,
``hypothesis``, ``both``: where negation was added). Rows outside such a triple are units of their own.

Malformed lines raise :class:`~negkit.errors.InputFormatError` naming the file and the line.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from negkit.errors import InputFormatError, quoted
from negkit.io.textfiles import read_bytes
from negkit.kit.data.nli import NLI_LABELS, NLIItem

#: Task suffix -> (file name, the labels of that file, in the order negkit reports them).
NEGNLI_SOURCES: dict[str, tuple[str, tuple[str, ...]]] = {
    "mnli": ("MNLI.txt", NLI_LABELS),
    "snli": ("SNLI.txt", NLI_LABELS),
    "rte": ("RTE.txt", ("entailment", "not_entailment")),
}
HEADER = ("index", "Text", "Hypothesis", "gold_label")
#: Where negation was added, by the row's place in its triple.
TRIPLE_CONDITIONS: tuple[str, str, str] = ("premise", "hypothesis", "both")


def _decode(path: Path, data: bytes) -> str:
    """UTF-8 when the bytes are UTF-8, else Windows-1252 (the released files); a byte neither reads names its line."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        try:
            text = data.decode("cp1252")
        except UnicodeDecodeError as error:
            line = data.count(b"\n", 0, error.start) + 1
            raise InputFormatError(
                path, line, f"neither UTF-8 nor Windows-1252 text: byte {data[error.start : error.start + 1]!r}"
            ) from None
    return text[1:] if text.startswith("\ufeff") else text


def read_negnli(path: str | Path, source: str | None = None) -> list[NLIItem]:
    """Read one NegNLI file; ``source`` (``mnli``, ``snli``, ``rte``) defaults to the file's stem. Item ids are
    ``negnli-SOURCE-INDEX`` (the file's ``index`` column), the suite ``negnli-SOURCE``."""
    path = Path(path)
    source = (source or path.stem).lower()
    if source not in NEGNLI_SOURCES:
        raise InputFormatError(
            path, None, f"unknown NegNLI source {source!r} (expected one of {', '.join(NEGNLI_SOURCES)})"
        )
    labels = NEGNLI_SOURCES[source][1]
    lines = _decode(path, read_bytes(path, "NegNLI file")).splitlines()
    if not lines or tuple(field.strip() for field in lines[0].split("\t")) != HEADER:
        raise InputFormatError(path, 1, f"expected the header {' / '.join(HEADER)} (tab-separated)")
    items: list[NLIItem] = []
    seen: set[str] = set()
    for number, text in enumerate(lines[1:], start=2):
        if not text.strip():
            continue
        fields = text.split("\t")
        if len(fields) != len(HEADER):
            raise InputFormatError(path, number, f"expected {len(HEADER)} tab-separated fields, found {len(fields)}")
        index, premise, hypothesis, label = (field.strip() for field in fields)
        if not index.isdigit():
            raise InputFormatError(path, number, f"column 'index': {quoted(index, 40)} is not a whole number")
        if index in seen:
            raise InputFormatError(path, number, f"index {index} appears twice")
        seen.add(index)
        if not premise or not hypothesis:
            raise InputFormatError(path, number, "empty 'Text' (premise) or 'Hypothesis'")
        if label.lower() not in labels:
            raise InputFormatError(
                path,
                number,
                f"column 'gold_label': unknown label {quoted(label, 40)} (expected one of {', '.join(labels)})",
            )
        items.append(
            NLIItem(
                item_id=f"negnli-{source}-{int(index)}",
                premise=premise,
                hypothesis=hypothesis,
                label=label.lower(),
                suite=f"negnli-{source}",
                row=int(index),
            )
        )
    if not items:
        raise InputFormatError(path, None, "no pairs")
    return _with_triples(items, source)


def _with_triples(items: list[NLIItem], source: str) -> list[NLIItem]:
    """Give the three items of each original pair one ``premise_id`` and their ``condition`` (see the module doc)."""
    result: list[NLIItem] = []
    position = 0
    while position < len(items):
        triple = items[position : position + 3]
        if len(triple) == 3 and triple[0].premise == triple[2].premise and triple[1].hypothesis == triple[2].hypothesis:
            unit = f"negnli-{source}-t{triple[0].row}"
            result += [
                replace(item, premise_id=unit, condition=condition)
                for item, condition in zip(triple, TRIPLE_CONDITIONS)
            ]
            position += 3
        else:
            result.append(replace(items[position], premise_id=items[position].item_id))
            position += 1
    return result
