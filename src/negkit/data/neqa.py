"""NeQA (Inverse Scaling Prize; McKenzie et al., 2023): negated two-option questions.

``neqa.csv`` has an unnamed index column and ``prompt``, ``classes`` (a Python list literal of the answer
continuations, e.g. ``[' A', ' B']``) and ``answer_index`` (0-based); each prompt ends in ``Answer:``. The
classes are scored as continuations of the prompt exactly as given (their leading space included).

Malformed rows raise :class:`~negkit.errors.InputFormatError` naming the file and the line.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from negkit.errors import InputFormatError, quoted
from negkit.io.textfiles import iter_csv

NEQA_FILE = "neqa.csv"
_COLUMNS = ("prompt", "classes", "answer_index")


@dataclass(frozen=True)
class NeQAItem:
    """One NeQA question: the prompt, the answer continuations and the index of the right one."""

    item_id: str
    prompt: str
    classes: tuple[str, ...]
    answer_index: int


def _classes(path: Path, line: int, text: str) -> tuple[str, ...]:
    try:
        value = ast.literal_eval(text.strip())
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        raise InputFormatError(path, line, f"column 'classes': {quoted(text, 40)} is not a list literal") from None
    if not isinstance(value, (list, tuple)) or len(value) < 2 or not all(isinstance(v, str) and v for v in value):
        raise InputFormatError(path, line, f"column 'classes': expected a list of at least two non-empty strings, "
                                           f"found {quoted(text, 40)}")
    if len(set(value)) != len(value):
        raise InputFormatError(path, line, f"column 'classes': {quoted(text, 40)} repeats a class")
    return tuple(value)


def read_neqa(path: str | Path) -> list[NeQAItem]:
    """Read ``neqa.csv`` (a folder means its ``neqa.csv``). Item ids are ``neqa-ROW`` (0-based data row)."""
    path = Path(path)
    if path.is_dir():
        path = path / NEQA_FILE
    rows = iter_csv(path)
    first = next(rows, None)
    if first is None:
        raise InputFormatError(path, 1, "empty file (expected a CSV header)")
    header = [name.strip() for name in first[1]]
    missing = [name for name in _COLUMNS if name not in header]
    if missing:
        raise InputFormatError(path, first[0], f"missing column(s): {', '.join(missing)}")
    items: list[NeQAItem] = []
    for line, values in rows:
        if not any(value.strip() for value in values):
            continue
        if len(values) != len(header):
            raise InputFormatError(path, line, f"expected {len(header)} columns, found {len(values)}")
        row = dict(zip(header, values))
        prompt = row["prompt"]
        if not prompt.strip():
            raise InputFormatError(path, line, "empty 'prompt'")
        classes = _classes(path, line, row["classes"])
        answer = row["answer_index"].strip()
        if not answer.isdigit() or int(answer) >= len(classes):
            raise InputFormatError(path, line, f"column 'answer_index': {quoted(answer, 20)} is not the index of one "
                                               f"of the {len(classes)} classes")
        items.append(NeQAItem(f"neqa-{len(items)}", prompt, classes, int(answer)))
    if not items:
        raise InputFormatError(path, None, "no questions")
    return items
