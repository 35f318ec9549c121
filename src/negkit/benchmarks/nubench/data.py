"""Thunder-NUBench (So et al., 2025) in its Hugging Face layout.

Two configurations:

- ``multiple-choice`` (splits ``validation``, ``test``): ``wikipedia_index``, ``index``, ``sentence``, ``choice1``
  (standard negation, always the answer), ``choice2`` (local negation), ``choice2_type`` (``relative_part``,
  ``pp_part``, ``compound_part``, ``adverb_part`` or ``non-applicable``), ``choice2_element``, ``choice3``
  (contradiction without negation), ``choice4`` (paraphrase). A row is a :class:`ChoiceRow`, read into
  :class:`ChoiceItem`.
- ``sentence-negation-pair`` (split ``train``): ``index``, ``premise``, ``hypothesis`` (its standard negation).
  A row is a :class:`PairRow`, read into :class:`NegationPair`; :func:`alpaca_records` turns them into Alpaca fine-tuning records.

Sources: the gated hub data set :data:`HUB_ID` (needs ``datasets``, network access and an accepted licence), or a
local folder ``ROOT/CONFIG/SPLIT.{jsonl,parquet,csv}`` with the same columns (see ``tests/fixtures/thunder_nubench``).
Whatever the source, the records are read against the row types (:func:`negkit.kit.data.rows.validate_rows`): a bad
one is one error naming the file (or the hub data set), the line (the row number in parquet and the hub) and the
field.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

from pydantic import BeforeValidator, model_validator

from negkit.errors import DataNotFoundError, InputFormatError, quoted
from negkit.io.atomic import atomic_write_text
from negkit.io.hub import hub_offline, in_hub_cache, offline_reason
from negkit.io.textfiles import iter_csv, iter_json_objects, iter_parquet
from negkit.kit.data.locate import locate_dataset
from negkit.kit.data.rows import DataRow, validate_rows
from negkit.kit.metrics.negation_choice import CHOICE_NAMES
from negkit.kit.tasks.negation_choice import NON_APPLICABLE, ChoiceItem

HUB_ID = "thunder-research-group/SNU_Thunder-NUBench"
#: The data set's folder under a data root.
DATA_FOLDER = "thunder-nubench"
MULTIPLE_CHOICE = "multiple-choice"
NEGATION_PAIRS = "sentence-negation-pair"
#: Splits of each configuration.
SPLITS: dict[str, tuple[str, ...]] = {MULTIPLE_CHOICE: ("validation", "test"), NEGATION_PAIRS: ("train",)}
#: Values of ``choice2_type``; ``non-applicable`` items have no local-negation choice.
CHOICE2_TYPES: tuple[str, ...] = ("relative_part", "pp_part", "compound_part", "adverb_part", "non-applicable")
#: The multiple-choice item (:class:`ChoiceItem`) and its candidate names (``CHOICE_NAMES``, choice1..choice4 in
#: file order) are the kit's (:mod:`negkit.kit.tasks.negation_choice`).
FILE_SUFFIXES: tuple[str, ...] = (".jsonl", ".parquet", ".csv")


def _text(value: Any) -> str:
    return "" if value is None else str(value).strip()


def _whole_number(value: Any) -> int:
    """A whole number as the file or hub gives it (``3``, ``3.0``, ``"3"``); anything else is an error."""
    try:
        if isinstance(value, bool):
            raise ValueError
        number = float(value)
        if number != int(number):
            raise ValueError
        return int(number)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{quoted(value)} is not an integer") from None


def _optional_whole_number(value: Any) -> int | None:
    return _whole_number(value) if _text(value) else None


def _choice2_type(value: Any) -> str:
    kind = _text(value)
    if kind not in CHOICE2_TYPES:
        raise ValueError(f"unknown value {quoted(kind)} (expected one of {CHOICE2_TYPES})")
    return kind


#: A text as read: stripped, a missing value (None) empty.
Stripped = Annotated[str, BeforeValidator(_text)]
#: A whole number written as a number or a numeral.
WholeNumber = Annotated[int, BeforeValidator(_whole_number)]


@dataclass(frozen=True)
class NegationPair:
    """A sentence and its standard negation (the fine-tuning data)."""

    index: int
    premise: str
    hypothesis: str


def find_split_file(root: str | Path, config: str, split: str) -> Path:
    """Return ``ROOT/CONFIG/SPLIT.{jsonl,parquet,csv}`` or raise :class:`DataNotFoundError`."""
    _check_config_split(config, split)
    folder = Path(root) / config
    for suffix in FILE_SUFFIXES:
        candidate = folder / f"{split}{suffix}"
        if candidate.is_file():
            return candidate
    raise DataNotFoundError(
        f"Thunder-NUBench {config}/{split} not found under {root} (expected {folder}/{split}.jsonl, .parquet or .csv; "
        f"the real data is the gated hub data set {HUB_ID})"
    )


def read_records(path: str | Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line, record)`` from a jsonl, parquet or csv file (line is the row's 1-based file line for jsonl
    and csv, the 1-based row number for parquet)."""
    path = Path(path)
    if path.suffix == ".jsonl":
        yield from iter_json_objects(path)
    elif path.suffix == ".csv":
        rows = iter_csv(path)
        first = next(rows, None)
        if first is None:
            raise InputFormatError(path, None, "empty file (expected a CSV header)")
        header = first[1]
        for line, values in rows:
            if len(values) != len(header):
                raise InputFormatError(path, line, f"expected {len(header)} columns, found {len(values)}")
            yield line, dict(zip(header, values))
    elif path.suffix == ".parquet":
        yield from iter_parquet(path)
    else:
        raise InputFormatError(path, None, f"unsupported file type {path.suffix!r} (use {', '.join(FILE_SUFFIXES)})")


class ChoiceRow(DataRow):
    """A row of the ``multiple-choice`` configuration (texts stripped, a missing one read as empty); ``choice2`` may
    be empty only for a ``non-applicable`` item."""

    index: WholeNumber
    sentence: Stripped
    choice1: Stripped
    choice2: Stripped
    choice3: Stripped
    choice4: Stripped
    choice2_type: Annotated[str, BeforeValidator(_choice2_type)]
    choice2_element: Stripped
    wikipedia_index: Annotated[int | None, BeforeValidator(_optional_whole_number)] = None

    @model_validator(mode="after")
    def _texts_given(self) -> ChoiceRow:
        texts = {"sentence": self.sentence, **dict(zip(CHOICE_NAMES, self.choices))}
        needed = ("choice1", "choice3", "choice4") if self.choice2_type == NON_APPLICABLE else CHOICE_NAMES
        for name in ("sentence", *needed):
            if not texts[name]:
                raise ValueError(f"field {name!r} is empty")
        return self

    @property
    def choices(self) -> tuple[str, str, str, str]:
        return (self.choice1, self.choice2, self.choice3, self.choice4)

    def item(self, split: str) -> ChoiceItem:
        return ChoiceItem(
            f"nubench-{split}-{self.index}",
            self.index,
            self.wikipedia_index,
            self.sentence,
            self.choices,
            self.choice2_type,
            self.choice2_element,
        )


class PairRow(DataRow):
    """A row of the ``sentence-negation-pair`` configuration."""

    index: WholeNumber
    premise: Stripped
    hypothesis: Stripped

    @model_validator(mode="after")
    def _texts_given(self) -> PairRow:
        if not self.premise or not self.hypothesis:
            raise ValueError("empty 'premise' or 'hypothesis'")
        return self


def read_choice_items(records: Iterable[tuple[int, Mapping[str, Any]]], source: str, split: str) -> list[ChoiceItem]:
    """Build :class:`ChoiceItem` objects from ``(line, record)`` pairs read as :class:`ChoiceRow`; ``source`` names
    the file in errors."""
    items = [row.item(split) for _, row in validate_rows(records, ChoiceRow, source)]
    _check_unique(source, [item.item_id for item in items])
    return items


def read_negation_pairs(records: Iterable[tuple[int, Mapping[str, Any]]], source: str) -> list[NegationPair]:
    """Build :class:`NegationPair` objects from ``(line, record)`` pairs read as :class:`PairRow`."""
    return [NegationPair(row.index, row.premise, row.hypothesis) for _, row in validate_rows(records, PairRow, source)]


def load_choice_items(split: str = "test", root: str | Path | None = None) -> list[ChoiceItem]:
    """Load the multiple-choice items of ``split`` from a local folder ``root``, or from the hub when ``root`` is None."""
    if root is None:
        return read_choice_items(_hub_records(MULTIPLE_CHOICE, split), HUB_ID, split)
    path = find_split_file(root, MULTIPLE_CHOICE, split)
    items = read_choice_items(read_records(path), str(path), split)
    if not items:
        raise InputFormatError(path, None, "no items (an empty file)")
    return items


def load_negation_pairs(root: str | Path | None = None) -> list[NegationPair]:
    """Load the sentence-negation pairs from a local folder ``root``, or from the hub when ``root`` is None."""
    if root is None:
        return read_negation_pairs(_hub_records(NEGATION_PAIRS, "train"), HUB_ID)
    path = find_split_file(root, NEGATION_PAIRS, "train")
    return read_negation_pairs(read_records(path), str(path))


def alpaca_records(pairs: Iterable[NegationPair], instruction: str) -> list[dict[str, str]]:
    """Alpaca-format fine-tuning records: ``instruction`` (prompt 7's instruction block),
    ``input`` = ``Sentence: {premise}\\nNegation:``, ``output`` = the hypothesis."""
    return [
        {"instruction": instruction, "input": f"Sentence: {pair.premise}\nNegation:", "output": pair.hypothesis}
        for pair in pairs
    ]


def write_alpaca_json(records: list[dict[str, str]], path: str | Path) -> None:
    """Write Alpaca records as one JSON list (the format LLaMA-Factory and most SFT tools read)."""
    atomic_write_text(path, json.dumps(records, ensure_ascii=False, indent=1) + "\n")


def _hub_records(config: str, split: str) -> Iterator[tuple[int, dict[str, Any]]]:
    _check_config_split(config, split)
    if hub_offline() and not in_hub_cache(HUB_ID, "README.md", repo_type="dataset"):
        raise DataNotFoundError(
            f"Thunder-NUBench was not found locally and the Hugging Face hub cannot be used ({offline_reason()}): "
            f"put a copy in DATA/thunder-nubench/{config}/{split}.jsonl (the gated hub data set {HUB_ID}), or leave "
            "the task out"
        )
    try:
        import datasets  # heavy: off the start-up path
    except ImportError:
        raise DataNotFoundError(
            "loading Thunder-NUBench from the hub needs the 'datasets' package (pip install negkit[hub])"
        ) from None
    try:
        dataset = datasets.load_dataset(HUB_ID, config, split=split)
    except Exception as error:  # network, authentication and gating errors all come here
        raise DataNotFoundError(
            f"could not load {HUB_ID} ({config}/{split}) from the Hugging Face hub: {error}. The data set is gated: "
            "accept its licence on the hub and log in (huggingface-cli login), or pass a local folder "
            "ROOT/CONFIG/SPLIT.jsonl in the same schema."
        ) from None
    for row_number, record in enumerate(dataset, start=1):
        yield row_number, dict(record)


def _check_config_split(config: str, split: str) -> None:
    if config not in SPLITS:
        raise DataNotFoundError(f"unknown Thunder-NUBench config {config!r} (expected one of {tuple(SPLITS)})")
    if split not in SPLITS[config]:
        raise DataNotFoundError(f"Thunder-NUBench {config} has no split {split!r} (expected one of {SPLITS[config]})")


def _check_unique(source: str, item_ids: list[str]) -> None:
    seen: set[str] = set()
    for position, item_id in enumerate(item_ids, start=1):
        if item_id in seen:
            raise InputFormatError(source, None, f"duplicate index (item {position}: {item_id})")
        seen.add(item_id)


def locate_nubench_root(data: str | Path | None) -> Path | None:
    """The local Thunder-NUBench root (``ROOT/multiple-choice/...``), or None to use the hub."""
    if data is not None and (Path(data) / MULTIPLE_CHOICE).is_dir():
        return Path(data)
    try:
        return locate_dataset(DATA_FOLDER, data)
    except DataNotFoundError:
        return None
