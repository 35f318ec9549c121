"""Data statistics of Thunder-NUBench (So et al., 2025): items per local-negation type and split (the paper's
Table 4) and the size of every configuration and split (its Table 9), beside the published counts.

:func:`nubench_statistics` counts items already read; :func:`nubench_data_statistics` reads a local copy
(``ROOT/multiple-choice/{validation,test}.jsonl`` and ``ROOT/sentence-negation-pair/train.jsonl``; the real data is
the gated hub data set, ``tests/fixtures/thunder_nubench`` a hand-written sample in its layout). A missing
``sentence-negation-pair`` split is reported as absent rather than failing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path

from negkit.benchmarks.nubench.data import (
    CHOICE2_TYPES,
    HUB_ID,
    MULTIPLE_CHOICE,
    NEGATION_PAIRS,
    SPLITS,
    ChoiceItem,
    NegationPair,
    find_split_file,
    load_choice_items,
    load_negation_pairs,
    locate_nubench_root,
)
from negkit.errors import DataNotFoundError
from negkit.kit.data.statistics import DataStatistics, StatisticsTable

#: Items per choice2_type in the published data (validation, test), from the data set card and the paper.
PUBLISHED_TYPE_COUNTS: dict[str, tuple[int, int]] = {
    "relative_part": (31, 293),
    "pp_part": (30, 290),
    "compound_part": (29, 277),
    "adverb_part": (8, 105),
    "non-applicable": (2, 37),
}
#: Published size of each configuration's splits.
PUBLISHED_SIZES: dict[tuple[str, str], int] = {
    (MULTIPLE_CHOICE, "validation"): 100,
    (MULTIPLE_CHOICE, "test"): 1002,
    (NEGATION_PAIRS, "train"): 3772,
}


def nubench_statistics(
    choice_items: Mapping[str, Sequence[ChoiceItem]], pairs: Sequence[NegationPair] | None, source: str = ""
) -> DataStatistics:
    """Statistics of multiple-choice items by split (``{"validation": [...], "test": [...]}``) and the
    sentence-negation pairs (``None``: not available)."""
    splits = [split for split in SPLITS[MULTIPLE_CHOICE] if split in choice_items]
    counts = {split: Counter(item.choice2_type for item in choice_items[split]) for split in splits}
    type_rows = []
    for kind in CHOICE2_TYPES:
        row = [counts[split][kind] for split in splits]
        type_rows.append((kind, *row, sum(row), *PUBLISHED_TYPE_COUNTS[kind]))
    totals = [len(choice_items[split]) for split in splits]
    published = [sum(PUBLISHED_TYPE_COUNTS[kind][i] for kind in CHOICE2_TYPES) for i in range(2)]
    type_rows.append(("all", *totals, sum(totals), *published))
    size_rows: list[tuple[str, str, int | None, int]] = [
        (MULTIPLE_CHOICE, split, len(choice_items[split]), PUBLISHED_SIZES[(MULTIPLE_CHOICE, split)])
        for split in splits
    ]
    size_rows.append(
        (NEGATION_PAIRS, "train", None if pairs is None else len(pairs), PUBLISHED_SIZES[(NEGATION_PAIRS, "train")])
    )
    tables = [
        StatisticsTable(
            "Items per local-negation type (choice2_type) and split (Table 4)",
            ("choice2_type", *splits, "total", "published validation", "published test"),
            tuple(type_rows),
            "non-applicable items offer three choices (no local negation), the others four.",
        ),
        StatisticsTable(
            "Configurations and splits (Table 9)",
            ("configuration", "split", "items", "published"),
            tuple(size_rows),
            "– : split not found in the data folder.",
        ),
    ]
    values = {
        "choice2_types": {split: {kind: counts[split][kind] for kind in CHOICE2_TYPES} for split in splits},
        "sizes": {f"{config}/{split}": items for config, split, items, _ in size_rows},
    }
    return DataStatistics("thunder-nubench", source, tables, values)


def nubench_data_statistics(data: str | Path | None = None) -> DataStatistics:
    """Read Thunder-NUBench (a local folder under a data root or the folder itself; else the gated hub data set)
    and return its statistics."""
    root = locate_nubench_root(data)
    items = {split: load_choice_items(split, root) for split in SPLITS[MULTIPLE_CHOICE]}
    pairs: list[NegationPair] | None
    try:
        if root is not None:
            find_split_file(root, NEGATION_PAIRS, "train")
        pairs = load_negation_pairs(root)
    except DataNotFoundError:
        pairs = None
    return nubench_statistics(items, pairs, str(root) if root is not None else HUB_ID)
