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
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, ConfigDict, Field

from negkit.errors import InputFormatError
from negkit.kit.data.rows import DataRow, Text, read_rows

#: ``PassageEditID`` -> the edit's name, in the paper's order.
EDITS: dict[int, str] = {0: "original", 1: "paraphrase", 2: "scope", 3: "affirmative"}
#: The closed answers; any other label is a span from the passage.
CLOSED_ANSWERS: tuple[str, ...] = ("YES", "NO", "DON'T KNOW")
DEV_FILE = "condaqa_dev.json"
TEST_FILE = "condaqa_test.json"
#: Split -> its file in the data folder (the train split is not distributed here).
SPLIT_FILES: dict[str, str] = {"dev": DEV_FILE, "test": TEST_FILE}


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


def _integer(value: Any) -> Any:
    """An integer, or a text holding one (the ids are written either way)."""
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"expected an integer, found {str(value)[:40]!r}")
    return value


#: An integer, or a text holding one.
Integer = Annotated[int, BeforeValidator(_integer)]


class Question(DataRow):
    """A line of a CondaQA file (texts stripped)."""

    model_config = ConfigDict(str_strip_whitespace=True)

    SampleID: Integer
    PassageID: Integer
    QuestionID: Text
    PassageEditID: Annotated[Literal[0, 1, 2, 3], BeforeValidator(_integer)]
    sentence1: Text
    sentence2: Text
    label: Text
    cue: Any = Field(None, alias="original cue")
    original_sentence: Any = Field(None, alias="original sentence")


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
    for line, row in read_rows(path, Question, format="jsonl"):
        if row.SampleID in seen:
            raise InputFormatError(path, line, f"SampleID {row.SampleID} appears twice")
        seen.add(row.SampleID)
        items.append(
            QAItem(
                item_id=f"condaqa-{row.SampleID}",
                sample_id=row.SampleID,
                passage_id=row.PassageID,
                question_id=row.QuestionID,
                edit=row.PassageEditID,
                passage=row.sentence1,
                question=row.sentence2,
                answer=row.label,
                cue=str(row.cue or ""),
                original_sentence=str(row.original_sentence or ""),
            )
        )
    return items
