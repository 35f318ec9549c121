"""CondaQA (Ravichander, Gardner and Marasović, EMNLP 2022): reading comprehension about negated statements.

The file is JSON Lines (``condaqa_dev.json`` despite its extension), one question about one passage per line,
with the keys ``SampleID`` (unique), ``PassageID`` (the Wikipedia passage), ``QuestionID`` (``q10``...: one
question, asked of the original passage and of its edits), ``PassageEditID`` (0 original, 1 paraphrase of the
negated statement, 2 scope of the negation changed, 3 negation undone), ``sentence1`` (the passage as shown),
``sentence2`` (the question), ``label`` (``YES``, ``NO``, ``DON'T KNOW`` or a span), ``original cue``,
``original sentence``, ``original passage``. A question's *group* is its original passage and the edits it was
asked of: ``(PassageID, QuestionID)``.

Malformed lines raise :class:`~negkit.errors.InputFormatError` naming the file and the line.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from negkit.errors import InputFormatError
from negkit.io.textfiles import iter_json_objects

#: ``PassageEditID`` -> the edit's name, in the paper's order.
EDITS: dict[int, str] = {0: "original", 1: "paraphrase", 2: "scope", 3: "affirmative"}
#: The closed answers; any other label is a span from the passage.
CLOSED_ANSWERS: tuple[str, ...] = ("YES", "NO", "DON'T KNOW")
DEV_FILE = "condaqa_dev.json"
TEST_FILE = "condaqa_test.json"
#: Split -> its file in the data folder (the train split is not distributed here).
SPLIT_FILES: dict[str, str] = {"dev": DEV_FILE, "test": TEST_FILE}
_REQUIRED = ("SampleID", "PassageID", "QuestionID", "PassageEditID", "sentence1", "sentence2", "label")


@dataclass(frozen=True)
class QAItem:
    """One CondaQA question about one (possibly edited) passage."""

    item_id: str
    sample_id: int
    passage_id: int
    question_id: str
    edit: int
    passage: str
    question: str
    answer: str
    cue: str = ""
    original_sentence: str = ""

    @property
    def edit_name(self) -> str:
        return EDITS[self.edit]

    @property
    def group_key(self) -> tuple[int, str]:
        """``(PassageID, QuestionID)``: the question asked of the original passage and its edits."""
        return (self.passage_id, self.question_id)

    @property
    def is_span(self) -> bool:
        """True when the gold answer is a span rather than yes / no / don't know."""
        return self.answer.upper() not in CLOSED_ANSWERS


def _integer(path: Path, line: int, record: dict[str, Any], name: str) -> int:
    value = record[name]
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise InputFormatError(path, line, f"field {name!r}: expected an integer, found {str(value)[:40]!r}")
    try:
        return int(value)
    except ValueError:
        raise InputFormatError(path, line, f"field {name!r}: expected an integer, found {str(value)[:40]!r}") from None


def _text(path: Path, line: int, record: dict[str, Any], name: str) -> str:
    value = record[name]
    if not isinstance(value, str) or not value.strip():
        raise InputFormatError(path, line, f"field {name!r}: expected non-empty text")
    return value.strip()


def read_condaqa(path: str | Path, split: str = "dev") -> list[QAItem]:
    """Read a CondaQA JSON Lines file (a folder means the file of ``split``: ``condaqa_dev.json`` or
    ``condaqa_test.json``). Item ids are ``condaqa-SAMPLEID``."""
    path = Path(path)
    if path.is_dir():
        if split not in SPLIT_FILES:
            raise InputFormatError(
                path, None, f"CondaQA has no {split!r} split here (splits: {', '.join(SPLIT_FILES)})"
            )
        path = path / SPLIT_FILES[split]
    items: list[QAItem] = []
    seen: set[int] = set()
    for line, record in iter_json_objects(path, required=_REQUIRED):
        sample_id = _integer(path, line, record, "SampleID")
        if sample_id in seen:
            raise InputFormatError(path, line, f"SampleID {sample_id} appears twice")
        seen.add(sample_id)
        edit = _integer(path, line, record, "PassageEditID")
        if edit not in EDITS:
            raise InputFormatError(path, line, f"field 'PassageEditID': {edit} is not one of 0, 1, 2, 3")
        items.append(
            QAItem(
                item_id=f"condaqa-{sample_id}",
                sample_id=sample_id,
                passage_id=_integer(path, line, record, "PassageID"),
                question_id=_text(path, line, record, "QuestionID"),
                edit=edit,
                passage=_text(path, line, record, "sentence1"),
                question=_text(path, line, record, "sentence2"),
                answer=_text(path, line, record, "label"),
                cue=str(record.get("original cue") or ""),
                original_sentence=str(record.get("original sentence") or ""),
            )
        )
    if not items:
        raise InputFormatError(path, None, "no questions")
    return items
