"""The files a data set consists of, each declared with where it is published and the bytes it must have.

A benchmark declares its files beside itself (``DataSource(files=declared_files(...))``), from a JSON file next to
its module. Every entry names:

- ``path``: where the file lives under a data root (POSIX, e.g. ``nan-nli/nan.csv``);
- ``sha256`` and ``size``: the exact bytes negkit's numbers were computed on;
- ``url``: where those bytes are published at a pinned revision (a GitHub raw URL at a commit), or ``null`` when no
  public URL serves them (then only a mirror, ``NEGKIT_DATA_MIRROR``, can provide the file, and ``note`` says why);
- ``unpacked_sha256`` / ``unpacked_size`` (``.gz`` files only): the URL serves the uncompressed bytes, which must
  have this hash; negkit stores them gzip-compressed (level 9, no name or time stamp), which gives ``sha256``;
- ``one_of`` (optional): files with the same ``one_of`` value are alternatives: the data set needs one of them
  (TIND: the authors' full zip, or the public half a mirror may serve);
- ``note`` (optional): how the file relates to its source, for a file that is not the source's bytes.

Beside ``files``, the manifest of a benchmark may declare the rest of its data source (:func:`declared_data`):
``how_to_get`` (how a user obtains the data), ``licence``, ``citation`` (the BibTeX key of the data set's paper) and
``folder`` (default: the folder of its files under a data root); the BibTeX entries of its papers are the ``.bib``
file of the manifest's name (``semantoneg_files.json``: ``semantoneg.bib``), or the one ``bib`` names (two data sets
of one paper share it).
"""

from __future__ import annotations

import gzip
import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from negkit.errors import InputFormatError

_CHUNK = 1 << 20


@dataclass(frozen=True)
class DataFile:
    """One file of a data set: its path under a data root, its hash and size, and where it is published."""

    path: str
    sha256: str
    #: Bytes on disk; ``None`` only for a build's input whose exact size no source states (its hash still decides).
    size: int | None
    url: str | None = None
    unpacked_sha256: str | None = None
    unpacked_size: int | None = None
    one_of: str = ""
    note: str = ""

    @property
    def gzipped(self) -> bool:
        """Whether negkit stores the file gzip-compressed while its URL serves the uncompressed bytes."""
        return self.unpacked_sha256 is not None

    @property
    def download_size(self) -> int:
        """Bytes fetched from the URL (the uncompressed size of a gzipped file; 0 when unknown)."""
        return self.unpacked_size if self.unpacked_size is not None else self.size or 0


def sha256_of(path: str | Path) -> str:
    """The SHA-256 of a file, read in chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(_CHUNK), b""):
            digest.update(chunk)
    return digest.hexdigest()


def gzip_bytes(data: bytes) -> bytes:
    """``data`` gzip-compressed the way the declared ``.gz`` files are: level 9, no name, time stamp 0, OS byte 255."""
    packed = bytearray(gzip.compress(data, compresslevel=9, mtime=0))
    packed[9] = 0xFF
    return bytes(packed)


def check_file(path: str | Path, declared: DataFile) -> str | None:
    """``None`` when the file at ``path`` has the declared size and hash, else what is wrong (one line)."""
    path = Path(path)
    if not path.is_file():
        return f"{path}: missing"
    if declared.gzipped and (path.stat().st_size != declared.size or sha256_of(path) != declared.sha256):
        return _check_unpacked(path, declared)  # compressed otherwise than declared: the content decides
    size = path.stat().st_size
    if declared.size is not None and size != declared.size:
        return f"{path}: {size} bytes, expected {declared.size} (a cut or changed file)"
    actual = sha256_of(path)
    if actual != declared.sha256:
        return f"{path}: sha256 {actual}, expected {declared.sha256}"
    return None


def _check_unpacked(path: Path, declared: DataFile) -> str | None:
    try:
        with gzip.open(path, "rb") as handle:
            digest = hashlib.sha256()
            for chunk in iter(lambda: handle.read(_CHUNK), b""):
                digest.update(chunk)
    except (OSError, EOFError) as error:
        return f"{path}: not a readable gzip file ({error}), expected sha256 {declared.sha256}"
    if digest.hexdigest() != declared.unpacked_sha256:
        return f"{path}: unpacked sha256 {digest.hexdigest()}, expected {declared.unpacked_sha256}"
    return None


_KEYS = {"path", "sha256", "size", "url", "unpacked_sha256", "unpacked_size", "one_of", "note"}


def _data_file(manifest: Path, index: int, entry: object) -> DataFile:
    where = f"entry {index + 1}"
    if not isinstance(entry, dict) or not {"path", "sha256", "size"} <= set(entry):
        raise InputFormatError(manifest, None, f"{where}: expected an object with path, sha256 and size")
    unknown = set(entry) - _KEYS
    if unknown:
        raise InputFormatError(manifest, None, f"{where}: unknown keys {sorted(unknown)}")
    path = PurePosixPath(entry["path"])
    if path.is_absolute() or ".." in path.parts:
        raise InputFormatError(manifest, None, f"{where}: path {entry['path']!r} must be relative, without '..'")
    sha = str(entry["sha256"])
    if len(sha) != 64 or any(c not in "0123456789abcdef" for c in sha):
        raise InputFormatError(manifest, None, f"{where}: sha256 {sha!r} is not 64 lowercase hex digits")
    return DataFile(**entry)


def declared_files(manifest: str | Path) -> tuple[DataFile, ...]:
    """The files declared in a JSON manifest (``{"files": [{path, sha256, size, url, ...}, ...]}``)."""
    manifest = Path(manifest)
    try:
        document = json.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise InputFormatError(manifest, None, f"not a readable JSON manifest ({error})") from None
    entries = document.get("files") if isinstance(document, dict) else None
    if not isinstance(entries, list):
        raise InputFormatError(manifest, None, 'expected {"files": [...]}')
    return tuple(_data_file(manifest, index, entry) for index, entry in enumerate(entries))


@dataclass(frozen=True)
class DataDeclaration:
    """A data set as a benchmark's manifest declares it (see the module documentation)."""

    folder: str
    how_to_get: str
    licence: str
    citation: str
    files: tuple[DataFile, ...]
    #: The BibTeX entries of the ``.bib`` file beside the manifest ("" when there is none).
    bibtex: str


def declared_data(manifest: str | Path) -> DataDeclaration:
    """The data set declared in a benchmark's manifest (``NAME_files.json``, with ``how_to_get``, ``licence`` and
    ``citation`` besides ``files``) and the BibTeX of ``NAME.bib`` beside it."""
    manifest = Path(manifest)
    files = declared_files(manifest)
    document = json.loads(manifest.read_text(encoding="utf-8"))
    texts: dict[str, str] = {}
    for key in ("how_to_get", "licence", "citation", "folder"):
        value = document.get(key, "" if key == "folder" else None)
        if not isinstance(value, str) or not (value or key == "folder"):
            raise InputFormatError(manifest, None, f"{key!r}: expected a non-empty string, found {value!r}")
        texts[key] = value
    folders = {PurePosixPath(file.path).parts[0] for file in files}
    if not texts["folder"] and len(folders) != 1:
        raise InputFormatError(manifest, None, "'folder' is needed: the files are not in one folder")
    folder = texts["folder"] or folders.pop()
    bib_name = document.get("bib", manifest.name.removesuffix(".json").removesuffix("_files") + ".bib")
    if not isinstance(bib_name, str) or PurePosixPath(bib_name).name != bib_name:
        raise InputFormatError(manifest, None, f"'bib': expected a file name beside it, found {bib_name!r}")
    bib = manifest.with_name(bib_name)
    bibtex = bib.read_text(encoding="utf-8").strip() if bib.is_file() else ""
    return DataDeclaration(folder, texts["how_to_get"], texts["licence"], texts["citation"], files, bibtex)


def total_size(files: Iterable[DataFile]) -> int:
    """Bytes on disk of ``files``, an alternative group counted once (by its first file)."""
    seen_groups: set[str] = set()
    total = 0
    for file in files:
        if file.one_of:
            if file.one_of in seen_groups:
                continue
            seen_groups.add(file.one_of)
        total += file.size or 0
    return total


def human_size(size: int) -> str:
    """``1.5 MB``-style size (powers of 1000, as the data READMEs give them)."""
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if size >= scale:
            return f"{size / scale:.1f} {unit}"
    return f"{size} B"


def unique_files(files: Sequence[DataFile]) -> list[DataFile]:
    """``files`` without repeats (a file two data sets declare is fetched once); the first declaration wins."""
    seen: dict[str, DataFile] = {}
    for file in files:
        seen.setdefault(file.path, file)
    return list(seen.values())
