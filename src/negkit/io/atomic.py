"""Output files that are either the old version or the new one, never a truncated mix.

Every results, samples, report and configuration file negkit writes goes through these functions: the
content is written to a temporary file in the same folder, flushed and ``fsync``-ed, then renamed over the
target (``os.replace`` is atomic on POSIX and Windows within one file system), and the folder is
``fsync``-ed so that the rename itself survives a crash. A kill at any moment leaves either the previous
file (or none) or the complete new one; the temporary file of an interrupted write is removed when the
writer sees the failure, and otherwise carries a ``.tmp-negkit-`` prefix that readers never match (``negkit eval``
removes such leftovers of a killed run when it takes the output folder's lock: :func:`remove_temporaries`).

A full disk (or any other ``OSError`` while writing) becomes a :class:`~negkit.errors.NegkitError` that
names the file; the previous file is left untouched.
"""

from __future__ import annotations

import errno
import json
import os
import re
import stat
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from negkit.errors import NegkitError

#: Prefix of the temporary files written next to their target.
TEMP_PREFIX = ".tmp-negkit-"
#: The whole name of such a file: the prefix, the target's name, a dot and ``tempfile.mkstemp``'s 8 characters.
_OWN_TEMPORARY = re.compile(re.escape(TEMP_PREFIX) + r".+\.[a-z0-9_]{8}")


def describe_os_error(error: OSError) -> str:
    """A short description of an I/O error (``no space left on the device``, ``Permission denied``, ...)."""
    if error.errno == errno.ENOSPC:
        return "no space left on the device"
    if error.errno == errno.EDQUOT:
        return "disk quota exceeded"
    return error.strerror or str(error)


def make_folder(folder: str | os.PathLike[str]) -> Path:
    """Create ``folder`` (and its parents) if needed; a file in the way (``--out`` a file, or under /dev/null) or a
    folder that cannot be created is a :class:`NegkitError` naming it."""
    path = Path(folder)
    if path.exists() and not path.is_dir():
        raise NegkitError(f"{path}: exists and is not a folder")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        blocker = next((parent for parent in path.parents if parent.exists()), None)
        if blocker is not None and not blocker.is_dir():
            raise NegkitError(f"{path}: cannot create the folder: {blocker} is not a folder") from None
        raise NegkitError(f"{path}: cannot create the folder: {describe_os_error(error)}") from None
    return path


def fsync_folder(folder: str | os.PathLike[str]) -> None:
    """Make a rename or a new file in ``folder`` durable (a no-op where folders cannot be opened)."""
    try:
        descriptor = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)


@contextmanager
def atomic_writer(path: str | os.PathLike[str], mode: str = "w", encoding: str = "utf-8") -> Iterator[IO[Any]]:
    """Open a temporary file next to ``path`` for writing; on a clean exit it replaces ``path`` atomically.

    ``mode`` is ``"w"`` (text, ``encoding``) or ``"wb"``. If the block raises, ``path`` is unchanged and the
    temporary file is removed.
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_writer mode must be 'w' or 'wb', got {mode!r}")
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    if target.is_dir():
        raise NegkitError(f"{target}: is a folder, cannot write a file there")
    try:
        descriptor, temporary = tempfile.mkstemp(prefix=TEMP_PREFIX + target.name + ".", dir=folder)
    except OSError as error:
        raise NegkitError(f"{target}: cannot write: {describe_os_error(error)}") from None
    try:
        os.fchmod(descriptor, _file_mode(target))  # mkstemp makes files private (0600); keep the usual mode
        text_options: dict[str, Any] = {
            "encoding": encoding,
            "errors": "backslashreplace",
        }  # a path of bytes that are not UTF-8
        with os.fdopen(descriptor, mode, **({} if "b" in mode else text_options)) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, target)
    except OSError as error:
        _remove_quietly(temporary)
        raise NegkitError(
            f"{target}: cannot write: {describe_os_error(error)} (the previous file, if any, is unchanged)"
        ) from None
    except BaseException:
        _remove_quietly(temporary)
        raise
    fsync_folder(folder)


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (see :func:`atomic_writer`)."""
    with atomic_writer(path, "wb") as handle:
        handle.write(data)


def atomic_write_text(path: str | os.PathLike[str], text: str, encoding: str = "utf-8") -> None:
    """Write ``text`` to ``path`` atomically (see :func:`atomic_writer`)."""
    with atomic_writer(path, "w", encoding) as handle:
        handle.write(text)


def atomic_write_json(path: str | os.PathLike[str], data: Any, indent: int | None = 2) -> None:
    """Write ``data`` as JSON (UTF-8, a final newline) to ``path`` atomically."""
    atomic_write_text(path, json.dumps(data, indent=indent, ensure_ascii=False) + "\n")


def atomic_write_jsonl(path: str | os.PathLike[str], records: Iterable[Any]) -> int:
    """Write one JSON document per line to ``path`` atomically; return the number of lines."""
    count = 0
    with atomic_writer(path, "w") as handle:
        for record in records:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
            count += 1
    return count


def _file_mode(target: Path) -> int:
    """The permission bits a rewritten ``target`` gets: its current ones, or what ``open()`` would give a new file
    (0666 less the process's umask)."""
    try:
        return stat.S_IMODE(target.stat().st_mode)
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask


def remove_temporaries(folder: str | os.PathLike[str]) -> list[Path]:
    """Remove the temporary files of writes that a killed process never finished in ``folder``; call it only while
    holding the folder's run lock (then no live writer owns them). Returns what was removed."""
    removed = []
    for path in Path(folder).glob(TEMP_PREFIX + "*"):
        if path.is_file() and _OWN_TEMPORARY.fullmatch(path.name):  # a user's file of a like name stays
            _remove_quietly(str(path))
            removed.append(path)
    return removed


def _remove_quietly(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def check_output_folder(out: Path) -> None:
    """``--out`` is a folder or can become one (not a file, not under a file such as /dev/null)."""
    if out.exists() and not out.is_dir():
        raise NegkitError(f"{out}: exists and is not a folder (the output goes into a folder)")
    for parent in out.parents:
        if parent.exists():
            if not parent.is_dir():
                raise NegkitError(f"{out}: cannot be created: {parent} is not a folder")
            break
