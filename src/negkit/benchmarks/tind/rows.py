"""The declared row types of TIND's HF layout (:mod:`negkit.benchmarks.tind.hf`): what one record of the release's
JSON Lines or parquet files (or of the hub data set) is, read by :func:`negkit.kit.data.rows.validate_rows`.

A record (:class:`HFRow`) has ``pattern_id`` (1-11), ``pattern`` (that pattern's name), ``test_id`` (a group
number >= 0), ``negation_type``, ``semantic_type``, ``syntactic_scope``, ``isDistractor`` and ``label``
(booleans), and ``sentence`` (or, in per-sample files written inside a git working tree, ``sentence_sha256``, read
as ``sha256:HEX``); negkit's own ``template_id`` and ``kind`` are optional. A prediction line
(:class:`PredictionRow`) adds the boolean ``prediction``. What spans records (sentences numbered within their
group, duplicate predictions, shards and splits) is the readers'.

Booleans are accepted as the authors' scorer accepts them (:func:`parse_bool`); numbers and strings must have their
type as they are (a whole float is a number: parquet written from a table with gaps holds them).
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import BeforeValidator, ValidationInfo, field_validator, model_validator

from negkit.benchmarks.tind.types import KINDS, PATTERN_NAMES
from negkit.errors import quoted
from negkit.kit.data.rows import DataRow

_SHA256 = re.compile(r"[0-9a-f]{64}")


def parse_bool(value: Any) -> bool | None:
    """The boolean ``value`` stands for, as the authors' scorer reads it; ``None`` when it is not one."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    if isinstance(value, (int, float)) and value in (0, 1):
        return value == 1
    return None


def _boolean(value: Any) -> bool:
    parsed = parse_bool(value)
    if parsed is None:
        raise ValueError(f"expected a boolean, found {quoted(value)}")
    return parsed


def _whole(value: Any) -> Any:
    """An ``int`` (a whole ``float`` as one); anything else names its type."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"expected int, found {type(value).__name__} {quoted(value)}")
    return value


def _string(value: Any) -> Any:
    if not isinstance(value, str):
        raise ValueError(f"expected str, found {type(value).__name__} {quoted(value)}")
    return value


#: A boolean as the authors' scorer reads one (``true``/``false`` in any case, 0 and 1).
Flag = Annotated[bool, BeforeValidator(_boolean)]
#: A whole number (``int``, or a whole ``float``).
Whole = Annotated[int, BeforeValidator(_whole)]
#: A string.
Str = Annotated[str, BeforeValidator(_string)]


class HFRow(DataRow):
    """One record of TIND's HF layout (see the module documentation)."""

    pattern_id: Whole
    pattern: Str
    test_id: Whole
    negation_type: Str
    semantic_type: Str
    syntactic_scope: Str
    isDistractor: Flag  # the release's field name
    label: Flag
    sentence: Str
    template_id: str | None = None
    kind: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _hashed_sentence(cls, record: Any) -> Any:
        """A record without ``sentence`` whose ``sentence_sha256`` holds a SHA-256 has the sentence ``sha256:HEX``."""
        if isinstance(record, dict) and "sentence" not in record and "sentence_sha256" in record:
            digest = record["sentence_sha256"]
            if not isinstance(digest, str):
                problem = f"expected str, found {type(digest).__name__} {quoted(digest)}"
                raise ValueError(f"field 'sentence_sha256': {problem}")
            if not _SHA256.fullmatch(digest):
                raise ValueError(f"field 'sentence_sha256': not a SHA-256, found {quoted(digest)}")
            return {**record, "sentence": f"sha256:{digest}"}
        return record

    @field_validator("pattern_id")
    @classmethod
    def _known_pattern(cls, pattern_id: int) -> int:
        if pattern_id not in PATTERN_NAMES:
            raise ValueError(f"expected 1-11, found {pattern_id}")
        return pattern_id

    @field_validator("pattern")
    @classmethod
    def _pattern_name(cls, pattern: str, info: ValidationInfo) -> str:
        pattern_id = info.data.get("pattern_id")
        if pattern_id is not None and pattern != PATTERN_NAMES[pattern_id]:
            raise ValueError(f"{quoted(pattern)} is not pattern {pattern_id} ({PATTERN_NAMES[pattern_id]})")
        return pattern

    @field_validator("test_id")
    @classmethod
    def _group_number(cls, test_id: int) -> int:
        if test_id < 0:
            raise ValueError(f"expected a group number >= 0, found {test_id}")
        return test_id

    @model_validator(mode="after")
    def _kind_agrees(self) -> HFRow:
        if self.item_kind not in KINDS or (self.item_kind != "Input") != self.isDistractor:
            raise ValueError(f"field 'kind': {quoted(self.item_kind)} does not agree with isDistractor")
        return self

    @property
    def item_kind(self) -> str:
        """``kind``, else ``Input`` or ``Distractor`` (the HF release does not tell the distractors apart)."""
        return self.kind or ("Distractor" if self.isDistractor else "Input")


class PredictionRow(HFRow):
    """A line of a predictions file in the authors' layout: a record and the boolean ``prediction``."""

    prediction: Flag
