"""TIND in the layout of the HF release (``HiTZ/This-is-not-a-dataset``): JSON Lines or parquet records.

A record has the fields ``pattern_id`` (int 1-11), ``pattern`` (name), ``test_id`` (int, one per group),
``negation_type``, ``semantic_type``, ``syntactic_scope``, ``isDistractor`` (bool), ``label`` (bool) and
``sentence``. negkit may add ``template_id`` and ``kind`` (the raw files' template variation and distractor
kind, which the HF release drops) and, in prediction files, the boolean ``prediction`` of the authors'
scorer. Readers accept the extra fields when present and fill them otherwise (``template_id`` empty,
``kind`` ``Input``/``Distractor``).

Booleans are accepted as the authors' scorer accepts them: JSON booleans, ``"true"``/``"false"`` in any
case, and the numbers 0 and 1. A record is read against the declared row type
:class:`~negkit.benchmarks.tind.rows.HFRow` (a prediction line :class:`~negkit.benchmarks.tind.rows.PredictionRow`);
what spans records (the numbering within groups, shards, splits, the hub, duplicate predictions) stays here.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from negkit.benchmarks.tind.rows import HFRow, PredictionRow
from negkit.benchmarks.tind.rows import parse_bool as parse_bool  # read by the TIND task from here
from negkit.benchmarks.tind.types import TruthItem, make_item_id
from negkit.errors import DataNotFoundError, InputFormatError, NegkitError
from negkit.io.atomic import atomic_writer
from negkit.io.hub import hub_offline, in_hub_cache, looks_like_path, offline_reason
from negkit.io.textfiles import iter_jsonl, iter_parquet
from negkit.kit.data.rows import validate_rows

#: The hub name of the authors' release.
HUB_NAME = "HiTZ/This-is-not-a-dataset"

#: The fields of an HF record, in the release's order.
HF_FIELDS: tuple[str, ...] = (
    "pattern_id",
    "pattern",
    "test_id",
    "negation_type",
    "semantic_type",
    "syntactic_scope",
    "isDistractor",
    "label",
    "sentence",
)
#: Fields negkit adds with ``extended=True`` (they make raw -> jsonl -> raw information-preserving per item).
EXTENDED_FIELDS: tuple[str, ...] = ("template_id", "kind")

#: The HF split names, in order, and the other names accepted for them.
SPLITS: tuple[str, ...] = ("train", "validation", "test")
SPLIT_ALIASES: dict[str, str] = {"dev": "validation", "valid": "validation", "val": "validation"}
_HUB_NAME_RE = re.compile(r"[A-Za-z0-9][\w.-]*/[\w.-]+")
_SPLIT_FILE_NAMES: dict[str, tuple[str, ...]] = {
    "train": ("train",),
    "validation": ("validation", "dev"),
    "test": ("test",),
}


def normalize_split(split: str) -> str:
    """``train``, ``validation`` or ``test`` for ``split`` (``dev`` and ``val`` mean ``validation``)."""
    name = SPLIT_ALIASES.get(split, split)
    if name not in SPLITS:
        raise NegkitError(f"unknown split {split!r} (expected one of: train, validation (dev), test)")
    return name


class RecordReader:
    """Turns HF-layout records into :class:`TruthItem` objects, numbering sentences within their group (across the
    shards of a split: one reader reads them all)."""

    def __init__(self, location: str) -> None:
        self.location = location
        self._group_sizes: dict[tuple[int, int], int] = {}

    def items(self, records: Iterable[tuple[int, Any]]) -> Iterator[TruthItem]:
        """The item of each ``(line or row number, record)``, read against :class:`HFRow`; a bad record is an
        :class:`InputFormatError` naming the location, the line and the field."""
        for _, row in validate_rows(records, HFRow, self.location):
            yield self.item_of(row)

    def item(self, record: Any, line: int) -> TruthItem:
        """The item of one record; ``line`` (1-based line or row number) is used in error messages."""
        return next(self.items([(line, record)]))

    def item_of(self, row: HFRow) -> TruthItem:
        """The item of a record read, the next sentence of its group."""
        group = (row.pattern_id, row.test_id)
        index = self._group_sizes.get(group, 0)
        self._group_sizes[group] = index + 1
        return TruthItem(
            item_id=make_item_id(row.pattern_id, row.test_id, index),
            group_id=row.test_id,
            pattern_id=row.pattern_id,
            pattern=row.pattern,
            template_id=row.template_id or "",
            negation_type=row.negation_type,
            semantic_type=row.semantic_type,
            syntactic_scope=row.syntactic_scope,
            kind=row.item_kind,
            is_distractor=row.isDistractor,
            label=row.label,
            sentence=row.sentence,
        )


def iter_records(path: str | Path) -> Iterator[tuple[int, Any]]:
    """``(line or row number, record)`` of a ``.jsonl``/``.json`` or ``.parquet`` file."""
    path = Path(path)
    if path.suffix == ".parquet":
        return iter_parquet(path)
    return iter_jsonl(path)


def _split_files(folder: Path, split: str) -> list[Path]:
    files: list[Path] = []
    for stem in _SPLIT_FILE_NAMES[split]:
        for pattern in (
            f"{stem}.jsonl",
            f"{stem}.json",
            f"{stem}.parquet",
            f"{stem}-*.parquet",
            f"data/{stem}-*.parquet",
        ):
            files += sorted(folder.glob(pattern))
    return files


def read_tind_hf(path_or_name: str | Path, split: str | None = None) -> list[TruthItem]:
    """Read TIND items in the HF layout.

    ``path_or_name`` is a ``.jsonl``/``.json``/``.parquet`` file (read whole), a folder holding split files
    (``train``/``validation`` or ``dev``/``test`` as ``.jsonl``, ``.json`` or ``.parquet``, also the hub's
    ``data/{split}-*.parquet`` shards), or a hub name such as ``HiTZ/This-is-not-a-dataset`` (needs network
    access and the ``datasets`` package). ``split`` selects one split; ``None`` reads every split found, in
    the order train, validation, test.
    """
    path = Path(path_or_name)
    wanted = [normalize_split(split)] if split is not None else list(SPLITS)
    if path.is_file():
        return _read_files([path])
    if path.is_dir():
        files = [file for name in wanted for file in _split_files(path, name)]
        if not files:
            raise DataNotFoundError(f"{path}: no {' / '.join(wanted)} split files (.jsonl, .json or .parquet) found")
        return _read_files(files)
    if _HUB_NAME_RE.fullmatch(str(path_or_name)) and not looks_like_path(str(path_or_name)):
        return _read_hub(str(path_or_name), wanted)
    raise DataNotFoundError(
        f"{path_or_name}: no such file or folder (TIND data: a raw folder or zip, a .jsonl or "
        ".parquet file or folder, or a hub name)"
    )


def _read_files(files: Sequence[Path]) -> list[TruthItem]:
    items: list[TruthItem] = []
    reader = RecordReader(str(files[0]))  # one numbering of sentences within groups across shards
    for file in files:
        reader.location = str(file)
        read = list(reader.items(iter_records(file)))
        if not read:
            raise InputFormatError(file, None, "no TIND records (an empty file)")
        items += read
    return items


def _read_hub(name: str, splits: Sequence[str]) -> list[TruthItem]:
    try:
        import datasets  # heavy: off the start-up path
    except ImportError as error:
        raise NegkitError(
            f"loading {name} from the hub needs the datasets package (pip install 'negkit[hub]')"
        ) from error
    if hub_offline() and not in_hub_cache(name, "README.md", repo_type="dataset"):
        raise DataNotFoundError(
            f"{name} is not a local file or folder and the Hugging Face hub cannot be used "
            f"({offline_reason()}); pass a local .jsonl/.parquet file or folder, or the raw zip"
        )
    items: list[TruthItem] = []
    for split in splits:
        try:
            rows = datasets.load_dataset(name, split=split)
        except Exception as error:  # network, authentication or missing split: all mean "not available here"
            raise DataNotFoundError(
                f"cannot load {name} split {split!r} from the Hugging Face hub ({type(error).__name__}: {error}). "
                "Offline? Pass a local .jsonl/.parquet file or folder, or the raw zip, instead."
            ) from error
        reader = RecordReader(f"{name}[{split}]")
        items += reader.items(enumerate(rows, start=1))
    return items


def item_record(item: TruthItem, extended: bool = False) -> dict[str, Any]:
    """The HF-layout record of ``item`` (plus ``template_id`` and ``kind`` when ``extended``)."""
    record: dict[str, Any] = {
        "pattern_id": item.pattern_id,
        "pattern": item.pattern,
        "test_id": item.group_id,
        "negation_type": item.negation_type,
        "semantic_type": item.semantic_type,
        "syntactic_scope": item.syntactic_scope,
        "isDistractor": item.is_distractor,
        "label": item.label,
        "sentence": item.sentence,
    }
    if extended:
        record["template_id"] = item.template_id
        record["kind"] = item.kind
    return record


def write_tind_jsonl(
    items: Iterable[TruthItem],
    path: str | Path,
    extended: bool = False,
    predictions: Sequence[bool] | None = None,
) -> int:
    """Write items as HF-layout JSON Lines; return the number of lines.

    ``extended`` adds ``template_id`` and ``kind``; ``predictions`` (one per item) adds the ``prediction``
    field of the authors' prediction files.
    """
    count = 0
    with atomic_writer(path) as handle:
        for count, item in enumerate(items, start=1):
            record = item_record(item, extended)
            if predictions is not None:
                record["prediction"] = bool(predictions[count - 1])
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
        if predictions is not None and len(predictions) != count:
            raise NegkitError(f"{len(predictions)} predictions for {count} items")
    return count


def write_tind_parquet(items: Iterable[TruthItem], path: str | Path, extended: bool = False) -> int:
    """Write items as an HF-layout parquet file; return the number of rows."""
    try:
        import pyarrow  # optional library, imported when used
        import pyarrow.parquet as parquet  # optional library, imported when used
    except ImportError as error:
        raise NegkitError("writing parquet needs pyarrow (pip install 'negkit[hub]')") from error
    records = [item_record(item, extended) for item in items]
    names = HF_FIELDS + (EXTENDED_FIELDS if extended else ())
    table = pyarrow.table({name: [record[name] for record in records] for name in names})
    with atomic_writer(path, "wb") as handle:
        parquet.write_table(table, handle)
    return len(records)


def read_tind_predictions(path: str | Path) -> tuple[list[TruthItem], list[bool]]:
    """Read a predictions file in the authors' layout: HF records plus a boolean ``prediction`` per line.

    A malformed line raises :class:`InputFormatError` naming the file, the line and the field.
    """
    if not Path(path).is_file():
        raise InputFormatError(path, None, "no such file" if not Path(path).exists() else "not a file")
    reader = RecordReader(str(path))
    items: list[TruthItem] = []
    predictions: list[bool] = []
    first_line: dict[str, int] = {}
    lines: list[int] = []
    previous = None
    records = list(iter_records(path))
    for (line, record), (_, row) in zip(records, validate_rows(records, PredictionRow, str(path))):
        key = _identity(record)
        if key is not None and key in first_line:  # the other suites' scorers refuse an item predicted twice too
            raise InputFormatError(path, line, f"item predicted twice (first on line {first_line[key]})")
        if key is not None:
            first_line[key] = line
        text = json.dumps(record, sort_keys=True, default=str)
        if text == previous:
            raise InputFormatError(path, line, "the same record twice in a row (an item predicted twice)")
        previous = text
        items.append(reader.item_of(row))
        lines.append(line)
        predictions.append(row.prediction)
    check_prediction_groups(items, path, lines)
    if not items:
        raise InputFormatError(path, None, "no predictions in the file")
    return items, predictions


def _identity(record: Mapping[str, Any]) -> str | None:
    """What makes a prediction line unique: its ``item_id`` (negkit's samples), else the whole record when it has
    the raw files' ``template_id`` (the HF fields alone repeat within groups of the release); else nothing."""
    if isinstance(record.get("item_id"), str):
        return "id:" + record["item_id"]
    if record.get("template_id"):
        fields = {key: value for key, value in record.items() if key != "prediction"}
        return json.dumps(fields, sort_keys=True, default=str)
    return None


def check_prediction_groups(items: Sequence[TruthItem], path: str | Path, lines: Sequence[int] | None = None) -> None:
    """Every pattern's groups are whole and the same size (TIND's metrics compare the sentences of a group): a group
    larger or smaller than all the other groups of its pattern has duplicated or missing lines (``lines``: each
    item's line, to name the first line too many)."""
    sizes: dict[tuple[int, int], int] = {}
    line_of: dict[tuple[int, int], list[int]] = {}
    for position, item in enumerate(items):
        sizes[item.group_key] = sizes.get(item.group_key, 0) + 1
        line_of.setdefault(item.group_key, []).append(lines[position] if lines else 0)
    by_pattern: dict[int, list[int]] = {}
    for (pattern, _group), size in sizes.items():
        by_pattern.setdefault(pattern, []).append(size)
    for (pattern, group), size in sizes.items():
        others = by_pattern[pattern]
        usual = max(set(others), key=others.count)
        if size != usual and others.count(usual) >= 2 and others.count(size) == 1:
            line = line_of[(pattern, group)][usual] if size > usual and lines else None
            raise InputFormatError(
                path,
                line,
                f"pattern {pattern}, group {group}: {size} sentences, the other groups "
                f"of the pattern {usual} (lines predicted twice, or missing?)",
            )
