"""Shared helpers for the TIND tests: the public half of the raw release, read once per test session.

The zip is read in place (never extracted into the repository); tests that need it skip when it is absent.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from conftest import shared_data_path

from negkit.benchmarks.tind.data import TindGroup, read_tind_raw

#: Groups and sentences per pattern in ``raw-public.zip`` (its README's table).
PUBLIC_COUNTS: dict[int, tuple[int, int]] = {
    1: (1498, 140812),
    2: (29, 4089),
    3: (7, 1218),
    4: (29, 5046),
    5: (317, 30432),
    6: (100, 6000),
    7: (11, 616),
    8: (6, 372),
    9: (30, 120),
    10: (5, 260),
    11: (20, 1800),
}


def public_zip() -> Path:
    """``../shared/data/tind/raw-public.zip``; skips the calling test when absent."""
    return shared_data_path("tind", "raw-public.zip")


@lru_cache(maxsize=1)
def _read_public(path: Path) -> tuple[TindGroup, ...]:
    return tuple(read_tind_raw(path))


def public_groups() -> list[TindGroup]:
    """Every group of the public half (read once per session; do not modify the groups)."""
    return list(_read_public(public_zip()))
