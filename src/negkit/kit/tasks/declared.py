"""What every declared task kind shares: :class:`DeclaredTask`, the base of :class:`~negkit.kit.tasks.choice.
MultipleChoice`, :class:`~negkit.kit.tasks.pairs.MinimalPairs`, :class:`~negkit.kit.tasks.cloze.Cloze`,
:class:`~negkit.kit.tasks.paired.PairedQuestions`, :class:`~negkit.kit.tasks.completion.Completions`,
:class:`~negkit.kit.tasks.text_likelihood.HeldOutText` and :class:`~negkit.kit.tasks.ranking_pairs.ContrastiveRanking`.

A declaration names the task, its reader (``read(folder, split) -> items``) and the files the reader reads
(``files(folder, split)``, or the reader's own ``files``, as :func:`negkit.kit.data.rows.rows_reader` gives);
then, by keyword, its title, the data set's folder under a data root (default: the name), what its intervals
resample (``unit``, in words), and the field that groups its items (``group_field``; ``groups`` orders the groups,
``groups_key`` names them in the metrics). Each kind adds what is its own (its answers, forms, parts, scoring).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import KW_ONLY, dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

#: The item type a declared task reads.
ItemT = TypeVar("ItemT")
#: ``files(folder, split) -> paths``: the files a split is read from (their hashes go into the results).
FileLister = Callable[[Path, str], list[Path]]


@dataclass(frozen=True)
class DeclaredTask(Generic[ItemT]):
    """The fields every declared task kind has (see the module documentation)."""

    name: str
    read: Callable[[Path, str], list[ItemT]]
    files: FileLister | None = None
    _: KW_ONLY
    title: str = ""
    dataset: str = ""
    #: What the intervals resample, in words (each kind sets its own default: ``question``, ``minimal pair``, ...).
    unit: str = "item"
    #: A field of the items whose values group them (accuracy per group; ``--limit N`` keeps the first
    #: ``ceil(N / groups)`` of each); ``groups`` orders them, ``groups_key`` names them in the metrics.
    group_field: str = "group"
    groups_key: str = "groups"
    groups: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.files is None and not callable(getattr(self.read, "files", None)):
            raise ValueError(f"{self.name}: say which files the reader reads (files=...)")

    def data_files(self, folder: Path, split: str) -> list[Path]:
        """The files the items of ``split`` are read from (``files``, else the reader's own ``files``)."""
        # __post_init__ checked that a reader given without ``files=`` has ``files`` of its own (a rows_reader)
        files: FileLister = self.files or self.read.files  # type: ignore[attr-defined]
        return list(files(Path(folder), split))


def own_field(default: Any) -> Any:
    """A kind's own default of a shared keyword field (``unit``, ``group_field``): keyword-only, like the base's."""
    return field(default=default, kw_only=True)
