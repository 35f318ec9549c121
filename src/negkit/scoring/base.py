"""What every predictions-file scorer returns."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass
class SuiteScore:
    """What a suite scorer returns: the metrics dictionary and its Markdown rendering."""

    metrics: dict[str, Any]
    markdown: str
