"""This is not a Dataset (TIND): every reader, writer and split in one import.

* raw release (``#NN.Pattern.txt`` files in a folder or the authors' encrypted zip, read in place):
  :func:`read_tind_raw`, :func:`write_tind_raw` (byte-identical), in :mod:`negkit.benchmarks.tind.raw`;
* HF layout (JSON Lines / parquet, or the hub name ``HiTZ/This-is-not-a-dataset``): :func:`read_tind_hf`,
  :func:`write_tind_jsonl`, :func:`write_tind_parquet`, :func:`read_tind_predictions`, in
  :mod:`negkit.benchmarks.tind.hf`;
* per-pattern split counts and the group-level split: :func:`read_example_counts`, :func:`split_groups`,
  :func:`split_items`, in :mod:`negkit.benchmarks.tind.split`;
* the types: :class:`TruthItem`, :class:`TindGroup` and the header parts, in :mod:`negkit.benchmarks.tind.types`.

:func:`read_tind` picks the reader from the path: a zip, a folder of pattern files or a ``#NN.Pattern.txt``
file is raw; anything else is the HF layout.
"""

from __future__ import annotations

from pathlib import Path

from negkit.benchmarks.tind.hf import (
    HF_FIELDS,
    HUB_NAME,
    SPLITS,
    item_record,
    normalize_split,
    read_tind_hf,
    read_tind_predictions,
    write_tind_jsonl,
    write_tind_parquet,
)
from negkit.benchmarks.tind.raw import (
    DEFAULT_PASSWORD,
    PATTERN_FILE_RE,
    TindSource,
    format_pattern_text,
    format_sentence_line,
    parse_header,
    parse_pattern_text,
    read_tind_raw,
    write_tind_raw,
)
from negkit.benchmarks.tind.split import (
    AUTHORS_SPLIT_COUNTS,
    SplitCounts,
    assign_splits,
    format_example_counts,
    parse_example_counts,
    read_example_counts,
    scaled_split_counts,
    split_groups,
    split_items,
)
from negkit.benchmarks.tind.types import (
    AFFIRMATION,
    ANTONYMY_PATTERNS,
    KINDS,
    PATTERN_IDS,
    PATTERN_NAMES,
    TWO_DISTRACTOR_PATTERNS,
    DistractorRef,
    SourceSynset,
    SourceTriple,
    SynsetId,
    TindGroup,
    TruthItem,
    expected_label,
    make_item_id,
)

__all__ = [
    "AFFIRMATION",
    "ANTONYMY_PATTERNS",
    "AUTHORS_SPLIT_COUNTS",
    "DEFAULT_PASSWORD",
    "HF_FIELDS",
    "HUB_NAME",
    "KINDS",
    "PATTERN_FILE_RE",
    "PATTERN_IDS",
    "PATTERN_NAMES",
    "SPLITS",
    "TWO_DISTRACTOR_PATTERNS",
    "DistractorRef",
    "SourceSynset",
    "SourceTriple",
    "SplitCounts",
    "SynsetId",
    "TindGroup",
    "TindSource",
    "TruthItem",
    "assign_splits",
    "expected_label",
    "format_example_counts",
    "format_pattern_text",
    "format_sentence_line",
    "is_raw_source",
    "item_record",
    "make_item_id",
    "normalize_split",
    "parse_example_counts",
    "parse_header",
    "parse_pattern_text",
    "read_example_counts",
    "read_tind",
    "read_tind_hf",
    "read_tind_predictions",
    "read_tind_raw",
    "scaled_split_counts",
    "split_groups",
    "split_items",
    "write_tind_jsonl",
    "write_tind_parquet",
    "write_tind_raw",
]


def is_raw_source(path: str | Path) -> bool:
    """True for a zip, a ``#NN.Pattern.txt`` file, or a folder holding such files (at any depth)."""
    path = Path(path)
    if path.is_dir():
        return any(PATTERN_FILE_RE.fullmatch(p.name) for p in path.rglob("#*.Pattern.txt"))
    return path.suffix == ".zip" or bool(PATTERN_FILE_RE.fullmatch(path.name))


def read_tind(path_or_name: str | Path, split: str | None = None, seed: int = 0) -> list[TruthItem]:
    """TIND items from any source: raw folder/zip/pattern file, HF-layout file or folder, or hub name.

    For raw sources ``split`` selects the groups of that split in :func:`split_groups` (with ``seed``); for
    HF sources it selects the release's own split. ``None`` returns every item.
    """
    if is_raw_source(path_or_name):
        groups = read_tind_raw(path_or_name)
        if split is not None:
            groups = split_groups(groups, seed)[normalize_split(split)]
        return [item for group in groups for item in group.items]
    return read_tind_hf(path_or_name, split)
