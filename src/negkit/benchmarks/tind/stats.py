"""Counts that describe a TIND data set: groups, sentences, label balance, kinds, negation, split sizes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from negkit.benchmarks.tind.hf import SPLITS
from negkit.benchmarks.tind.types import PATTERN_NAMES, TruthItem

#: The per-pattern counters of :func:`tind_statistics`, in report order.
STAT_FIELDS: tuple[str, ...] = ("groups", "sentences", "true", "false", "input", "distractor", "negated")


def tind_statistics(
    items: Sequence[TruthItem],
    split_of: Mapping[tuple[int, int], str] | None = None,
) -> dict[str, dict[str, Any]]:
    """Per-pattern counts (keyed by pattern name) and their ``total``.

    Each entry has ``groups``, ``sentences``, ``true``/``false`` (gold labels), ``input``/``distractor``
    (sentence kinds) and ``negated`` (sentences with negation). With ``split_of`` (group key -> split name,
    e.g. from :func:`negkit.benchmarks.tind.split.assign_splits`) each entry also has ``split_groups``: the groups
    per split.
    """
    stats: dict[int, dict[str, Any]] = {}
    seen_groups: dict[int, set[tuple[int, int]]] = {}
    for item in items:
        entry = stats.setdefault(item.pattern_id, {name: 0 for name in STAT_FIELDS})
        groups = seen_groups.setdefault(item.pattern_id, set())
        if item.group_key not in groups:
            groups.add(item.group_key)
            entry["groups"] += 1
            if split_of is not None:
                split_counts = entry.setdefault("split_groups", {split: 0 for split in SPLITS})
                split_counts[split_of[item.group_key]] += 1
        entry["sentences"] += 1
        entry["true" if item.label else "false"] += 1
        entry["distractor" if item.is_distractor else "input"] += 1
        entry["negated"] += item.is_negated
    result = {PATTERN_NAMES[pattern_id]: stats[pattern_id] for pattern_id in sorted(stats)}
    total: dict[str, Any] = {name: sum(entry[name] for entry in result.values()) for name in STAT_FIELDS}
    if split_of is not None:
        total["split_groups"] = {split: sum(e["split_groups"][split] for e in result.values()) for split in SPLITS}
    result["total"] = total
    return result
