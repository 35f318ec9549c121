"""Comparison of a generated TIND with the paper's Table 2 and with the public half's group sources."""

from __future__ import annotations

from collections.abc import Sequence

from negkit.benchmarks.tind.split import AUTHORS_SPLIT_COUNTS
from negkit.benchmarks.tind.types import PATTERN_NAMES, TindGroup

#: Sentences per pattern in the full release (paper Table 2); group counts are in ``AUTHORS_SPLIT_COUNTS``.
PAPER_SENTENCES: dict[int, int] = {
    1: 281_624,
    2: 8_178,
    3: 2_436,
    4: 10_092,
    5: 60_864,
    6: 11_940,
    7: 1_176,
    8: 682,
    9: 240,
    10: 468,
    11: 3_600,
}


def source_overlap(generated: Sequence[TindGroup], reference: Sequence[TindGroup]) -> dict[int, tuple[int, int]]:
    """Per pattern: (reference groups whose source triple was generated too, reference groups)."""
    made = {(group.pattern_id, group.source.header_text()) for group in generated}
    overlap: dict[int, tuple[int, int]] = {}
    for group in reference:
        found, total = overlap.get(group.pattern_id, (0, 0))
        overlap[group.pattern_id] = (found + ((group.pattern_id, group.source.header_text()) in made), total + 1)
    return overlap


def comparison_table(generated: Sequence[TindGroup], public: Sequence[TindGroup] | None) -> str:
    """Markdown table: generated triples/groups/sentences, the paper's counts, overlap with ``public``."""
    overlap = source_overlap(generated, public) if public is not None else {}
    lines = [
        "| pattern | triples | groups | sentences | paper groups | paper sentences | public sources found |",
        "|---|---|---|---|---|---|---|",
    ]
    totals = [0, 0, 0, 0, 0, 0]
    for pattern_id in sorted({group.pattern_id for group in generated}):
        groups = [group for group in generated if group.pattern_id == pattern_id]
        sentences = sum(len(group.items) for group in groups)
        triples = len({group.source.header_text() for group in groups})
        found, total = overlap.get(pattern_id, (0, 0))
        paper_groups = AUTHORS_SPLIT_COUNTS[pattern_id].total
        cells = [triples, len(groups), sentences, paper_groups, PAPER_SENTENCES[pattern_id], found]
        totals = [a + b for a, b in zip(totals, cells)]
        shown = f"{found}/{total}" if total else "-"
        lines.append(
            f"| #{pattern_id:02d} {PATTERN_NAMES[pattern_id]} | {triples:,} | {len(groups):,} | {sentences:,} "
            f"| {paper_groups:,} | {PAPER_SENTENCES[pattern_id]:,} | {shown} |"
        )
    public_total = sum(total for _, total in overlap.values())
    shown = f"{totals[5]}/{public_total}" if public_total else "-"
    lines.append(f"| all | {totals[0]:,} | {totals[1]:,} | {totals[2]:,} | {totals[3]:,} | {totals[4]:,} | {shown} |")
    return "\n".join(lines)
