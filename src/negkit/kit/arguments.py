"""argparse value types shared by every command, the benchmarks' own included: counts, seeds, limits, per-task
values, lists, and their inverses. Each type raises :class:`argparse.ArgumentTypeError` (or
:class:`~negkit.errors.NegkitError`) with a one-line message; the parser turns it into ``negkit: error: ...`` and
exit status 2."""

from __future__ import annotations

import argparse
import math
import re
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from negkit.errors import NegkitError

T = TypeVar("T")


def per_task_value(convert: Callable[[str], T]) -> Callable[[str], T | dict[str, T]]:
    """An argparse type for ``VALUE`` (every task) or ``TASK=VALUE,...`` (per task), each converted."""

    def parse(text: str) -> T | dict[str, T]:
        if "=" not in text:
            return convert(text)
        values: dict[str, T] = {}
        for part in text.split(","):
            task, separator, value = part.partition("=")
            if not separator or not task.strip() or not value.strip():
                raise argparse.ArgumentTypeError(f"per-task entries are TASK=VALUE, got {part!r}")
            if task.strip() in values:
                raise argparse.ArgumentTypeError(f"task {task.strip()!r} is given twice")
            values[task.strip()] = convert(value.strip())
        return values

    return parse


def non_negative(text: str) -> int:
    """An argparse type: a whole number >= 0."""
    return whole_number(text, 0)


def limit_value(text: str) -> int | float:
    """A count (>= 1) or a fraction in (0, 1), as the Harness's ``--limit``."""
    if re.fullmatch(r"\s*-?\d+\s*", text):
        return positive_int(text.strip())
    try:
        fraction = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a count or a fraction, got {text[:40]!r}") from None
    if not 0 < fraction < 1:
        raise argparse.ArgumentTypeError(f"a fraction must be between 0 and 1 (exclusive), got {text[:40]!r}")
    return fraction


#: ``500`` -> 500 for every task; ``0.1`` -> a tenth of each task; ``tind=1500,scone=0.5`` -> per task.
parse_limit = per_task_value(limit_value)


def format_limit(limit: int | float | dict[str, int | float]) -> str:
    """Inverse of :func:`parse_limit`."""
    return format_per_task(limit)


def positive_int(text: str) -> int:
    """An argparse type: a whole number >= 1."""
    return whole_number(text, 1)


def whole_number(text: str, minimum: int) -> int:
    """``text`` as a whole number of at least ``minimum`` (an argparse error otherwise)."""
    try:
        number = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, got {text[:40]!r}") from None
    if number < minimum:
        raise argparse.ArgumentTypeError(f"must be at least {minimum}, got {number}")
    return number


#: Seeds are whole numbers in [0, 2**32): every generator negkit seeds (random, NumPy, torch) takes them as they are
#: (NumPy refuses negative seeds; Python's random would treat -1 as 1).
SEED_LIMIT = 2**32


def seed_value(text: str) -> int:
    """An argparse type: a seed, a whole number from 0 to 2**32 - 1."""
    number = whole_number(text, 0)
    if number >= SEED_LIMIT:
        raise argparse.ArgumentTypeError(f"must be below 2**32, got {text[:40]!r}")
    return number


def harness_seed(text: str) -> int:
    """An argparse type: ``--seed`` as negkit's one seed, or the Harness's four (python, numpy, torch, few-shot:
    ``0,1234,1234,1234``, ``None`` for one left unset): negkit draws its samples and few-shot examples from one seed,
    so the Harness's few-shot seed (the last one given) is that seed."""
    parts = [part.strip() for part in text.split(",")]
    if len(parts) == 1:
        return seed_value(text)
    if len(parts) != 4:
        raise argparse.ArgumentTypeError(
            f"one seed or the Harness's four (python,numpy,torch,fewshot), got {text[:60]!r}"
        )
    given = [seed_value(part) for part in parts if part.lower() != "none"]
    if not given:
        raise argparse.ArgumentTypeError(f"no seed given in {text[:60]!r}")
    return given[-1]


def positive_float(text: str) -> float:
    """An argparse type: a finite number > 0."""
    return _number(text, lambda number: number > 0 and math.isfinite(number), "a finite number above 0")


def wait_seconds(text: str) -> float:
    """An argparse type: seconds to wait (>= 0), or ``inf``."""
    return _number(text, lambda number: number >= 0, "a number of seconds of at least 0")


def _number(text: str, accept: Callable[[float], bool], what: str) -> float:
    try:
        number = float(text)
    except ValueError:
        number = math.nan
    if not accept(number):
        raise argparse.ArgumentTypeError(f"must be {what}, got {text[:40]!r}")
    return number


def parse_batch_size(text: str) -> int | None:
    """``auto`` -> None (memory-safe automatic size), else a positive integer."""
    if text == "auto":
        return None
    try:
        size = int(text)
    except ValueError:
        raise NegkitError(f"--batch-size must be a number or auto, got {text!r}") from None
    if size < 1:
        raise NegkitError(f"--batch-size must be at least 1, got {size}")
    return size


def label_list(text: str) -> tuple[str, ...]:
    labels = tuple(part.strip() for part in text.split(",") if part.strip())
    if len(labels) < 2 or len(set(labels)) != len(labels):
        raise argparse.ArgumentTypeError(f"expected two or more distinct label names, got {text!r}")
    return labels


def format_per_task(value: Any) -> str:
    """Inverse of the ``N`` / ``TASK=N,...`` syntax."""
    if isinstance(value, Mapping):
        return ",".join(f"{task}={item}" for task, item in value.items())
    return str(value)
