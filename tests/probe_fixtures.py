"""Helpers of the issue-28 benchmark tests: the random baseline's answers worked out from its definition, a run of
``negkit eval`` into a folder, its sample records, and small files written for a test."""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path
from typing import Any

from suite_fixtures import random_logprob

from negkit.commands.eval.evaluate import evaluate
from negkit.commands.eval.options import EvalOptions

__all__ = ["random_logprob", "random_next", "run", "samples", "write", "write_jsonl"]


def random_next(seed: int, context: str, candidate: str) -> float:
    """The ``random`` baseline's next-token log-probability of ``candidate``: ``log(u)`` with ``u`` from the SHA-256
    of ``seed``, ``"next"``, the context and the candidate."""
    text = "\x1f".join([str(seed), "next", context, candidate])
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return math.log((int.from_bytes(digest[:8], "big") + 0.5) / 2**64)


def run(model: str, task: str, root: Path, out: Path, **options: Any) -> Any:
    """``negkit eval --model MODEL --tasks TASK --data ROOT --out OUT`` (100 resamples), its task result."""
    options.setdefault("bootstrap", 100)
    return evaluate(model, [task], EvalOptions(data=str(root), out=out, progress=False, **options))[0]


def samples(result: Any) -> list[dict[str, Any]]:
    with open(result["files"]["samples"], encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    return write(path, "".join(json.dumps(row) + "\n" for row in rows))
