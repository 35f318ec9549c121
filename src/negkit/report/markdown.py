"""Markdown table helpers shared by the report modules."""

from __future__ import annotations

from collections.abc import Sequence


def number(value: float | int | None, digits: int = 3) -> str:
    """A number as text: integers as they are, floats with ``digits`` decimals, ``None`` as an en dash."""
    if value is None:
        return "–"
    if isinstance(value, int):
        return str(value)
    return f"{value:.{digits}f}"


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A GitHub-flavoured Markdown table; cells are converted with ``str`` (format numbers first)."""
    escape = lambda cell: str(cell).replace("|", "\\|").replace("\n", " ")  # noqa: E731
    lines = ["| " + " | ".join(escape(h) for h in headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(escape(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)
