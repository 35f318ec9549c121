"""Group-level train/validation/test splits of TIND and the authors' per-pattern counts (``example_count.txt``).

The raw release does not record which group went to which split of the HF release; it only gives, in
``example_count.txt``, how many groups each pattern has in each split (``01 - 2996 | 2396 100 500``: 2,996
groups, 2,396 train, 100 dev, 500 test). :func:`split_groups` makes a deterministic group-level split with
those counts: no group straddles two splits.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import NamedTuple, TypeVar

from negkit.benchmarks.tind.hf import SPLITS
from negkit.benchmarks.tind.raw import DEFAULT_PASSWORD, TindSource
from negkit.benchmarks.tind.types import TindGroup, TruthItem
from negkit.errors import InputFormatError

EXAMPLE_COUNT_FILE = "example_count.txt"
_COUNT_LINE_RE = re.compile(r"\s*(\d+)\s*-\s*(\d+)\s*\|\s*(\d+)\s+(\d+)\s+(\d+)\s*")


class SplitCounts(NamedTuple):
    """Groups of one pattern: in all, and in the train, validation (dev) and test splits."""

    total: int
    train: int
    validation: int
    test: int


#: The authors' ``example_count.txt`` (full data set, 4,100 groups), pattern number -> counts. These are
#: counts, not data; a test checks them against the file in the release.
AUTHORS_SPLIT_COUNTS: dict[int, SplitCounts] = {
    1: SplitCounts(2996, 2396, 100, 500),
    2: SplitCounts(58, 25, 8, 25),
    3: SplitCounts(14, 6, 2, 6),
    4: SplitCounts(58, 25, 8, 25),
    5: SplitCounts(634, 275, 84, 275),
    6: SplitCounts(199, 90, 19, 90),
    7: SplitCounts(21, 9, 3, 9),
    8: SplitCounts(11, 5, 1, 5),
    9: SplitCounts(60, 25, 10, 25),
    10: SplitCounts(9, 4, 1, 4),
    11: SplitCounts(40, 16, 8, 16),
}


def parse_example_counts(text: str, location: str = EXAMPLE_COUNT_FILE) -> dict[int, SplitCounts]:
    """Parse the content of ``example_count.txt`` (``NN - total | train dev test`` per line)."""
    counts: dict[int, SplitCounts] = {}
    for line_number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        match = _COUNT_LINE_RE.fullmatch(line)
        if not match:
            raise InputFormatError(location, line_number, f"expected 'NN - total | train dev test', found {line!r}")
        pattern_id, total, train, dev, test = (int(value) for value in match.groups())
        if train + dev + test != total:
            raise InputFormatError(location, line_number, f"train + dev + test = {train + dev + test}, not {total}")
        counts[pattern_id] = SplitCounts(total, train, dev, test)
    return counts


def read_example_counts(path: str | Path, password: str = DEFAULT_PASSWORD) -> dict[int, SplitCounts]:
    """Read ``example_count.txt``: the file itself, or the one inside a raw folder or zip (read in place).

    The authors' zip and ``raw-public.zip`` both carry it beside the pattern files; it always describes the
    full data set.
    """
    path = Path(path)
    if path.is_file() and path.name == EXAMPLE_COUNT_FILE:
        return parse_example_counts(path.read_text(encoding="utf-8"), str(path))
    source = TindSource(path, password)
    name = source.find(EXAMPLE_COUNT_FILE)
    if name is None:
        raise InputFormatError(path, None, f"no {EXAMPLE_COUNT_FILE} in it")
    return parse_example_counts(source.read_text(name), source.location(name))


def format_example_counts(counts: Mapping[int, SplitCounts]) -> str:
    """``example_count.txt`` content in the authors' layout (no newline after the last line)."""
    return "\n".join(
        f"{pattern_id:02d} - {c.total} | {c.train} {c.validation} {c.test}" for pattern_id, c in sorted(counts.items())
    )


def scaled_split_counts(groups: int, reference: SplitCounts) -> SplitCounts:
    """Split ``groups`` groups in the proportions of ``reference`` (largest-remainder apportionment).

    When ``groups`` equals ``reference.total`` the counts are ``reference``'s own. Otherwise each split gets
    ``floor(groups * share)`` groups and the groups left over go one each to the splits with the largest
    remainders, ties going to train, then validation, then test. The public half of the release (every
    other group) thus gets half of each count, rounded this way: pattern #01's 1,498 groups split
    1,198 / 50 / 250 and pattern #02's 29 groups 13 / 4 / 12.
    """
    shares = (reference.train, reference.validation, reference.test)
    if reference.total <= 0:
        raise ValueError("reference counts must have a positive total")
    quotients = [share * groups // reference.total for share in shares]
    remainders = [share * groups % reference.total for share in shares]
    left = groups - sum(quotients)
    for index in sorted(range(3), key=lambda i: (-remainders[i], i))[:left]:
        quotients[index] += 1
    return SplitCounts(groups, *quotients)


def assign_splits(
    group_keys: Sequence[tuple[int, int]],
    seed: int = 0,
    counts: Mapping[int, SplitCounts] | None = None,
) -> dict[tuple[int, int], str]:
    """Split name (``train``/``validation``/``test``) of every ``(pattern_id, group_id)`` key.

    Per pattern, the keys (deduplicated, in first-seen order) are shuffled by a generator seeded with
    ``seed`` and the pattern number, and the first ones go to train, the next to validation and the rest to
    test, in the numbers :func:`scaled_split_counts` gives from ``counts`` (the authors' counts by default).
    A pattern missing from ``counts`` uses the proportions of all patterns together. The result depends
    only on ``seed``, ``counts`` and the keys of each pattern in their order.
    """
    counts = AUTHORS_SPLIT_COUNTS if counts is None else counts
    overall = SplitCounts(*(sum(c[i] for c in counts.values()) for i in range(4)))
    by_pattern: dict[int, list[tuple[int, int]]] = {}
    for key in dict.fromkeys(group_keys):
        by_pattern.setdefault(key[0], []).append(key)
    assignment: dict[tuple[int, int], str] = {}
    for pattern_id, keys in by_pattern.items():
        sizes = scaled_split_counts(len(keys), counts.get(pattern_id, overall))
        order = list(range(len(keys)))
        random.Random(f"negkit-tind-split/{seed}/{pattern_id}").shuffle(order)
        boundaries = (sizes.train, sizes.train + sizes.validation)
        for rank, position in enumerate(order):
            split = SPLITS[0] if rank < boundaries[0] else SPLITS[1] if rank < boundaries[1] else SPLITS[2]
            assignment[keys[position]] = split
    return assignment


_Grouped = TypeVar("_Grouped", TindGroup, TruthItem)


def _by_split(elements: Iterable[_Grouped], keys: Mapping[tuple[int, int], str], key_of) -> dict[str, list[_Grouped]]:
    result: dict[str, list[_Grouped]] = {split: [] for split in SPLITS}
    for element in elements:
        result[keys[key_of(element)]].append(element)
    return result


def split_groups(
    groups: Sequence[TindGroup],
    seed: int = 0,
    counts: Mapping[int, SplitCounts] | None = None,
) -> dict[str, list[TindGroup]]:
    """Deterministic group-level split: ``{"train": [...], "validation": [...], "test": [...]}``.

    Each pattern's groups are divided in the per-pattern counts of the authors' ``example_count.txt``
    (``counts`` overrides them). On the full release these are the exact counts; on any other number of
    groups of a pattern (the public half in ``raw-public.zip``, a generated set) the counts are scaled to
    that number by largest-remainder apportionment (see :func:`scaled_split_counts`; the public half gets
    half of each count). Which groups go where is drawn with ``seed`` (see :func:`assign_splits`); within a
    split the groups keep their input order. The authors' own assignment is not recoverable from the raw
    files, so this split reproduces their counts, not their membership.
    """
    keys = assign_splits([group.key for group in groups], seed, counts)
    return _by_split(groups, keys, lambda group: group.key)


def split_items(
    items: Sequence[TruthItem],
    seed: int = 0,
    counts: Mapping[int, SplitCounts] | None = None,
) -> dict[str, list[TruthItem]]:
    """The same split as :func:`split_groups`, applied to the items of those groups (kept in input order)."""
    keys = assign_splits([item.group_key for item in items], seed, counts)
    return _by_split(items, keys, lambda item: item.group_key)
