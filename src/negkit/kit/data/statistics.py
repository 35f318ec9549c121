"""Data statistics tables of a benchmark suite (``negkit data stats SUITE``), in one shape for every suite.

A suite's statistics function reads its data and returns a :class:`DataStatistics`: a few
:class:`StatisticsTable` objects (the layout of the paper's data tables) plus the plain numbers behind them, which
render as Markdown (:meth:`DataStatistics.to_markdown`) or JSON (:meth:`DataStatistics.to_dict`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class StatisticsTable:
    """One table: a title, column headers, rows of cells (numbers or text), and an optional note under it."""

    title: str
    headers: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]
    note: str = ""

    def to_markdown(self) -> str:
        def cell(value: Any) -> str:
            if isinstance(value, bool) or value is None:
                return "–" if value is None else str(value)
            if isinstance(value, int):
                return f"{value:,}"
            if isinstance(value, float):
                return f"{value:.1f}"
            return str(value).replace("|", "\\|")

        lines = [
            f"### {self.title}",
            "",
            "| " + " | ".join(self.headers) + " |",
            "|" + "|".join("---" for _ in self.headers) + "|",
        ]
        lines += ["| " + " | ".join(cell(value) for value in row) + " |" for row in self.rows]
        if self.note:
            lines += ["", self.note]
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        return {
            "title": self.title,
            "headers": list(self.headers),
            "rows": [list(row) for row in self.rows],
            **({"note": self.note} if self.note else {}),
        }


@dataclass(frozen=True)
class DataStatistics:
    """The statistics of one suite's data: where they were read, the tables, and the numbers as a dictionary."""

    suite: str
    source: str
    tables: Sequence[StatisticsTable]
    values: dict[str, Any] = field(default_factory=dict)

    def to_markdown(self) -> str:
        parts = [f"## {self.suite}: data statistics", "", f"Data: `{self.source}`"]
        parts += ["", *("\n\n".join(table.to_markdown() for table in self.tables),)]
        return "\n".join(parts) + "\n"

    def to_dict(self) -> dict[str, Any]:
        return {
            "suite": self.suite,
            "source": self.source,
            "values": self.values,
            "tables": [table.to_dict() for table in self.tables],
        }


def share(count: int, total: int) -> float:
    """``count`` as a percentage of ``total`` (0 when the total is 0)."""
    return 100.0 * count / total if total else 0.0
