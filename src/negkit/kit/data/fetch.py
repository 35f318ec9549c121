"""Fetch declared data files into a data root: verified by hash before use, resumable, safe with two processes.

:func:`fetch_files` brings the files of one data set (:class:`negkit.kit.data.declared.DataFile`) into a data
root. A file already there with the declared hash is left alone (a second fetch downloads nothing). Otherwise it
is downloaded with pooch (``pooch.retrieve``: the bytes go to a temporary file beside the target, the SHA-256 is
checked, then the file is renamed into place, so nothing half-written or wrong ever has the final name). The
HTTP transfer itself is requests', through :class:`ResumableDownload`: the bytes received so far are kept in
``ROOT/.partial/`` and an interrupted download continues from there with an HTTP range request.

Where from: the file's own URL (a pinned revision), or, with a mirror (``NEGKIT_DATA_MIRROR`` or ``mirror=``),
``MIRROR/PATH`` only: an institutional mirror or a local server with the data root's layout (a local folder works
too). Files with the same ``one_of`` are alternatives: the first one that can be had is enough.

The whole fetch holds the data root's lock (:class:`negkit.io.locks.RunLock`): a second process waits, then finds
the files present.
"""

from __future__ import annotations

import math
import os
import shutil
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from negkit.errors import NegkitError
from negkit.io.atomic import atomic_write_bytes
from negkit.io.locks import RunLock
from negkit.kit.data.declared import DataFile, check_file, gzip_bytes, sha256_of

#: Environment variable naming a mirror (a URL, or a local folder) with the data root's layout.
MIRROR_VARIABLE = "NEGKIT_DATA_MIRROR"
#: Folder under the data root where partial downloads wait to be resumed.
PARTIAL_FOLDER = ".partial"
#: Seconds to wait for a server to answer (connect and each read).
TIMEOUT_SECONDS = 60.0


class DownloadError(NegkitError):
    """A declared file could not be fetched, or came with the wrong bytes."""


@dataclass
class FetchReport:
    """What one fetch did: files downloaded (with bytes), files already present, files that failed (and why)."""

    fetched: list[tuple[str, int]] = field(default_factory=list)
    present: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)

    @property
    def downloaded_bytes(self) -> int:
        return sum(size for _, size in self.fetched)

    def merge(self, other: FetchReport) -> None:
        self.fetched += other.fetched
        self.present += other.present
        self.failed += other.failed


def mirror_from_environment(mirror: str | None = None) -> str | None:
    """The mirror to use: ``mirror`` if given, else ``NEGKIT_DATA_MIRROR``, else none."""
    return mirror or os.environ.get(MIRROR_VARIABLE) or None


def mirror_url(mirror: str, path: str) -> str:
    """The URL (or local path) of the data file ``path`` on ``mirror``."""
    folder = _local_mirror(mirror)
    if folder is not None:
        return str(folder / path)
    return mirror.rstrip("/") + "/" + quote(path)


def _local_mirror(mirror: str) -> Path | None:
    if mirror.startswith("file://"):
        return Path(mirror[len("file://") :])
    if "://" not in mirror:
        return Path(mirror).expanduser()
    return None


class ResumableDownload:
    """A pooch downloader that keeps the bytes received in ``partial`` and resumes from them (HTTP ``Range``);
    ``progress(n)`` is told of each chunk. A server that ignores the range starts the file over."""

    def __init__(self, partial: Path, size: int | None, progress: Callable[[int], None], timeout: float) -> None:
        self.partial = partial
        self.size = size
        self.progress = progress
        self.timeout = timeout

    def __call__(self, url: str, output_file: Any, pooch: Any = None) -> None:
        import requests

        self.partial.parent.mkdir(parents=True, exist_ok=True)
        have = self.partial.stat().st_size if self.partial.exists() else 0
        if self.size is not None and have > self.size:
            self.partial.unlink()
            have = 0
        if self.size is None or have < self.size or self.size == 0:
            headers = {"Range": f"bytes={have}-"} if have else {}
            with requests.get(url, headers=headers, stream=True, timeout=self.timeout) as response:
                if have and response.status_code == 416:  # nothing after what we have: the file is complete
                    os.replace(self.partial, output_file)
                    return
                if have and response.status_code != 206:
                    have = 0  # the server sent the whole file (or refused the range): start over
                response.raise_for_status()
                if have:
                    self.progress(have)
                with open(self.partial, "ab" if have else "wb") as out:
                    for chunk in response.iter_content(chunk_size=1 << 16):
                        out.write(chunk)
                        self.progress(len(chunk))
        os.replace(self.partial, output_file)


class LocalCopy:
    """A pooch downloader for a mirror that is a local folder: a plain copy."""

    def __init__(self, progress: Callable[[int], None]) -> None:
        self.progress = progress

    def __call__(self, url: str, output_file: Any, pooch: Any = None) -> None:
        source = Path(url)
        if not source.is_file():
            raise FileNotFoundError(f"{source}: not in the mirror")
        shutil.copyfile(source, output_file)
        self.progress(source.stat().st_size)


def _retrieve(
    url: str,
    sha256: str | None,
    target: Path,
    partial: Path,
    size: int | None,
    progress: Callable[[int], None],
    local: bool,
) -> None:
    """Download ``url`` to ``target`` through pooch, checking ``sha256`` before the file gets its name; the bytes
    received so far wait in ``partial``."""
    import pooch

    downloader = LocalCopy(progress) if local else ResumableDownload(partial, size, progress, TIMEOUT_SECONDS)
    target.parent.mkdir(parents=True, exist_ok=True)
    known = f"sha256:{sha256}" if sha256 else None
    pooch.retrieve(url, known_hash=known, fname=target.name, path=target.parent, downloader=downloader)


def _describe_failure(error: BaseException, url: str) -> str:
    text = str(error)
    if isinstance(error, ValueError) and "hash" in text.lower():
        return f"wrong bytes from {url}: {text}"
    status = getattr(getattr(error, "response", None), "status_code", None)
    if status is not None:
        return f"{url}: HTTP {status}"
    return f"{url}: {type(error).__name__}: {text}"


def fetch_file(
    file: DataFile,
    root: Path,
    mirror: str | None = None,
    progress: Callable[[int], None] = lambda n: None,
) -> int:
    """Bring ``file`` into ``root`` (see the module documentation); returns the bytes downloaded. Raises
    :class:`DownloadError` naming the file, the URL and what went wrong (the expected and actual hash for wrong
    bytes); nothing is left under the file's name unless it has the declared hash."""
    target = root / file.path
    partial = root / PARTIAL_FOLDER / file.path
    if mirror:  # the mirror has the data root's layout: the declared bytes themselves
        url, sha256, size, pack = mirror_url(mirror, file.path), file.sha256, file.size, False
    elif file.url:  # the source: the declared bytes, or a .gz file's uncompressed bytes
        url, sha256, size, pack = (
            file.url,
            file.unpacked_sha256 or file.sha256,
            file.unpacked_size or file.size,
            file.gzipped,
        )
    else:
        raise DownloadError(
            f"{file.path}: no public URL serves this file ({file.note or 'see the data set README'}); "
            f"fetch it from a mirror: --mirror URL or {MIRROR_VARIABLE}"
        )
    local = _local_mirror(mirror) is not None if mirror else False
    try:
        if mirror and file.gzipped:
            # a mirror may hold the file compressed by another gzip (same content, other bytes): staged, then
            # checked by check_file, which accepts either the declared bytes or the declared content
            staged = root / PARTIAL_FOLDER / "staged" / file.path
            _retrieve(url, None, staged, partial, None, progress, local)
            problem = check_file(staged, file)
            if problem:
                staged.unlink()
                raise DownloadError(f"{file.path}: wrong bytes from {url}: {problem}")
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(staged, target)
        elif not pack:
            _retrieve(url, sha256, target, partial, size, progress, local)
        else:
            source = root / PARTIAL_FOLDER / "unpacked" / file.path.removesuffix(".gz")
            _retrieve(url, sha256, source, partial, size, progress, local)
            packed = gzip_bytes(source.read_bytes())
            source.unlink()
            # the source's bytes were checked (unpacked_sha256); a file compressed by another gzip than the declared
            # bytes' keeps the same content, which check_file accepts
            target.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_bytes(target, packed)
    except DownloadError:
        raise
    except Exception as error:  # requests, pooch (ValueError on a wrong hash), OS errors: all name the file
        raise DownloadError(f"{file.path}: {_describe_failure(error, url)}") from None
    problem = check_file(target, file)
    if problem:
        raise DownloadError(problem)
    return size or target.stat().st_size


def file_groups(files: Sequence[DataFile]) -> list[list[DataFile]]:
    """``files`` in declared order, alternatives (same ``one_of``) together as one group."""
    groups: list[list[DataFile]] = []
    by_name: dict[str, list[DataFile]] = {}
    for file in files:
        if file.one_of and file.one_of in by_name:
            by_name[file.one_of].append(file)
            continue
        group = [file]
        groups.append(group)
        if file.one_of:
            by_name[file.one_of] = group
    return groups


def present_file(group: Sequence[DataFile], root: Path) -> DataFile | None:
    """The file of an alternative group (:func:`file_groups`) that ``root`` holds with its declared bytes, or None."""
    return next((file for file in group if check_file(root / file.path, file) is None), None)


def missing_files(files: Sequence[DataFile], root: Path) -> list[DataFile]:
    """The files (one per alternative group) that ``root`` lacks or holds with other bytes."""
    missing = []
    for group in file_groups(files):
        if present_file(group, root) is None:
            missing.append(group[0])
    return missing


def fetch_files(
    files: Sequence[DataFile],
    root: str | Path,
    mirror: str | None = None,
    label: str = "",
    show_progress: bool | None = None,
) -> FetchReport:
    """Bring every file of ``files`` into ``root`` (one of each alternative group); see the module documentation.
    Failures are collected in the report, not raised, so that one bad file does not stop the others."""
    import pooch
    from tqdm import tqdm

    pooch.get_logger().setLevel("WARNING")  # negkit reports what it fetched itself, once per data set
    root = Path(root).expanduser()
    report = FetchReport()
    todo: list[list[DataFile]] = []
    for group in file_groups(files):
        done = present_file(group, root)
        if done is not None:
            report.present.append(done.path)
        else:
            todo.append(group)
    if not todo:
        return report
    total = sum(group[0].download_size for group in todo)
    show = sys.stderr.isatty() if show_progress is None else show_progress
    with tqdm(total=total, unit="B", unit_scale=True, desc=label or None, disable=not show, leave=False) as bar:
        for group in todo:
            errors = []
            for file in group:
                try:
                    report.fetched.append((file.path, fetch_file(file, root, mirror, bar.update)))
                    break
                except DownloadError as error:
                    errors.append(str(error))
            else:
                report.failed.append((group[0].path, "; ".join(errors)))
                _remove_empty_folders(root / group[0].path, root)
    return report


def _remove_empty_folders(target: Path, root: Path) -> None:
    """The folders above ``target`` up to ``root`` that a failed download left empty: an empty data set folder
    would otherwise be found before a whole copy later in the lookup order."""
    folder = target.parent
    while folder != root and root in folder.parents:
        try:
            folder.rmdir()  # only an empty folder goes
        except OSError:
            return
        folder = folder.parent


def data_lock(root: str | Path, announce: Callable[[str], None] | None = None) -> RunLock:
    """The lock a fetch into ``root`` holds: another process fetching into the same root waits for it."""
    return RunLock(Path(root).expanduser(), wait=math.inf, info={"command": "negkit data get"}, announce=announce)


__all__ = [
    "MIRROR_VARIABLE",
    "DownloadError",
    "FetchReport",
    "data_lock",
    "fetch_file",
    "fetch_files",
    "mirror_from_environment",
    "mirror_url",
    "missing_files",
    "present_file",
    "sha256_of",
]
