"""Where a data set lives and how to get it: :class:`DataSource`, the data declaration of a suite (and of the
negation-resolution corpora, :mod:`negkit.kit.corpora`), read by ``negkit data`` and every data lookup."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from negkit.kit.data.declared import DataFile, declared_data


@dataclass(frozen=True)
class DataSource:
    """Where a suite's data lives under a data root, how to get it, and its licence."""

    #: Sub-folder of a data root (``--data ROOT``, ``NEGKIT_DATA``, ``./data``, ``../shared/data``).
    folder: str
    #: How a user obtains the data (printed when it is not found).
    how_to_get: str
    licence: str = "see the authors' release"
    #: ``locate(data) -> folder or None`` when finding the data takes more than the folder (default: the folder).
    locate: Callable[[str | Path | None], Path | None] | None = None
    #: The files the suite reads, each with its URL at a pinned revision, SHA-256 and size
    #: (:func:`negkit.kit.data.declared.declared_files`); ``negkit data get`` fetches them.
    files: tuple[DataFile, ...] = ()
    #: The BibTeX key of the data set's paper (``<first author's surname><year>``); several separated by commas.
    citation: str = ""
    #: Public files a declared file without a URL is built from (``build``), fetched like ``files``.
    inputs: tuple[DataFile, ...] = ()
    #: ``build(inputs_root, root)``: writes the declared files that no URL serves into the data root ``root``
    #: from ``inputs`` (found under ``inputs_root`` by their paths); ``negkit data get`` then checks their hashes.
    build: Callable[[Path, Path], object] | None = None
    #: The BibTeX entries of the data set's papers (a suite given no ``bibtex`` of its own cites these).
    bibtex: str = ""

    @classmethod
    def declared(cls, module: str | Path) -> DataSource:
        """The data source a benchmark declares beside its module ``NAME.py``: ``NAME_files.json`` (its files, how
        to get them, licence and citation key; :func:`negkit.kit.data.declared.declared_data`) and ``NAME.bib``."""
        path = Path(module)
        declared = declared_data(path.with_name(path.stem + "_files.json") if path.suffix == ".py" else path)
        return cls(
            declared.folder,
            declared.how_to_get,
            licence=declared.licence,
            files=declared.files,
            citation=declared.citation,
            bibtex=declared.bibtex,
        )
