"""TIND stays private: decrypted sentences are never written inside a git working tree unless the user says so.

The TIND authors distribute their data encrypted so that it stays out of repositories, web crawls and thus
LM training sets. negkit's commands follow that:

- ``negkit tind convert``, ``generate`` and ``realise`` write whole data sets; inside a git working tree they
  refuse (:func:`refuse_inside_git`) unless given ``--allow-in-git``;
- ``negkit eval`` writes per-sample records; inside a git working tree (the README's main job writes
  ``negkit-runs/main`` in the checkout) the private fields of a task's records (TIND: ``sentence`` and
  ``prompt``) are replaced by their SHA-256 (``sentence_sha256``, ``prompt_sha256``; :func:`redact_record`):
  the item ids, labels, scores and predictions stay, so the metrics, ``negkit score tind`` and comparisons work
  the same, and whoever has the data can join the records back to the sentences by id or hash. With
  ``--allow-in-git`` the sentences are written as they are;
- the run store keeps such a task's generated text sealed (encrypted with a key derived from its prompt,
  :mod:`negkit.runs.sealing`), so that a resumed run still reads it back.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from negkit.errors import NegkitError

#: Suffix of the field that holds the hash of a redacted field.
HASH_SUFFIX = "_sha256"


def inside_git_worktree(path: str | Path) -> Path | None:
    """The root of the git working tree that holds (or would hold) ``path``, or ``None``."""
    resolved = Path(path).expanduser().resolve()
    for folder in [resolved, *resolved.parents]:
        if (folder / ".git").exists():
            return folder
    return None


def refuse_inside_git(destination: str | Path, allow: bool, what: str = "decrypted TIND sentences") -> None:
    """A :class:`NegkitError` when ``destination`` lies inside a git working tree and ``allow`` is false."""
    repository = inside_git_worktree(destination)
    if repository is not None and not allow:
        raise NegkitError(
            f"{destination}: inside the git working tree {repository}; the TIND authors ask that {what} stay out "
            "of repositories and web crawls. Write elsewhere or pass --allow-in-git."
        )


def text_sha256(text: str) -> str:
    """SHA-256 (hex) of ``text`` in UTF-8."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _hashed(value: Any) -> Any:
    if isinstance(value, str):
        return text_sha256(value)
    if isinstance(value, list):
        return [_hashed(element) for element in value]
    return value


def redact_record(record: dict[str, Any], fields: Iterable[str]) -> dict[str, Any]:
    """A copy of ``record`` with each of ``fields`` (also inside ``runs[RUN]``) replaced by ``FIELD_sha256``."""
    wanted = tuple(fields)
    redacted: dict[str, Any] = {}
    for key, value in record.items():
        if key in wanted:
            redacted[key + HASH_SUFFIX] = _hashed(value)
        elif key == "runs" and isinstance(value, dict):
            redacted[key] = {
                run: redact_record(entry, wanted) if isinstance(entry, dict) else entry for run, entry in value.items()
            }
        else:
            redacted[key] = value
    return redacted


def private_fields_to_redact(
    fields: Sequence[str], out: str | Path, allow_in_git: bool
) -> tuple[tuple[str, ...], Path | None]:
    """Which of a task's private ``fields`` to redact from its records when writing to ``out`` (none outside a git
    working tree, with ``allow_in_git``, or for a task without private data), and the working tree's root."""
    fields = tuple(fields)
    if not fields or allow_in_git:
        return (), None
    repository = inside_git_worktree(out)
    return (fields, repository) if repository is not None else ((), None)
