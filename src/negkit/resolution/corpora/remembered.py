"""The corpora a process read, kept: reading BioScope or SFU Review takes seconds (XML parsing and tokenising), and
one process often reads the same corpus several times (statistics, then a baseline, then its splits), under
different spellings of its path (``../shared/data/sfu-review`` and the absolute path, or a folder and the one folder
of XML files inside it). :func:`remembered_corpus` wraps a reader so that reading unchanged files again with the same
options hands out a copy of what was read, instead of parsing them again; the copy names the path as this call gave
it, as a fresh read would."""

from __future__ import annotations

import dataclasses
import functools
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from negkit.resolution.instances import Corpus

#: How many corpora a process keeps, for every reader together (BioScope's three files and SFU's folder take some
#: 100 MB in all).
KEPT = 8

#: (the reader, the files read: resolved path, size, modification time; the options) -> (corpus, the path it was
#: read as)
_Key = tuple[object, ...]
_KEPT: OrderedDict[_Key, tuple[Corpus, str | Path]] = OrderedDict()


class CorpusReader(Protocol):
    def __call__(
        self, path: str | Path, *, keep_speculation: bool = True, cue_in_scope: bool = False, strict: bool = False
    ) -> Corpus: ...


def remembered_corpus(pattern: str, as_path: bool) -> Callable[[CorpusReader], CorpusReader]:
    """A decorator keeping the last :data:`KEPT` corpora its reader read (for every reader together), keyed by the
    files it reads (a file, or those matching ``pattern`` below a folder: resolved path, size and modification time)
    and the options; each call gets a corpus of its own, with the path spelt as the call spelt it (``as_path``: the
    reader names places by the :class:`~pathlib.Path` of what it was given, else by the string given)."""

    def spelling(path: str | Path) -> str:
        return str(Path(path)) if as_path else str(path)

    def decorate(read: CorpusReader) -> CorpusReader:
        @functools.wraps(read)
        def reader(
            path: str | Path, *, keep_speculation: bool = True, cue_in_scope: bool = False, strict: bool = False
        ) -> Corpus:
            key = (read, _files_key(Path(path), pattern), keep_speculation, cue_in_scope, strict)
            if key in _KEPT:
                _KEPT.move_to_end(key)
                corpus, read_as = _KEPT[key]
                old, new = _respelling(read_as, path, spelling(read_as), spelling(path))
                return dataclasses.replace(_copy(corpus, old, new), path=spelling(path))
            corpus = read(path, keep_speculation=keep_speculation, cue_in_scope=cue_in_scope, strict=strict)
            _KEPT[key] = (corpus, path)
            while len(_KEPT) > KEPT:
                _KEPT.popitem(last=False)
            return _copy(corpus, "", "")

        return reader

    return decorate


def _files_key(path: Path, pattern: str) -> tuple[tuple[str, int, int], ...] | None:
    """The resolved path, size and modification time of the file, or of every file matching ``pattern`` below the
    folder (``None`` for a path that does not exist: the reader says so)."""
    if path.is_dir():
        files = sorted(file.resolve() for file in path.rglob(pattern) if file.is_file())
    elif path.exists():
        files = [path.resolve()]
    else:
        return None
    return tuple((str(file), *_stamp(file)) for file in files)


def _stamp(file: Path) -> tuple[int, int]:
    status = file.stat()
    return (status.st_size, status.st_mtime_ns)


def _respelling(read_as: str | Path, given: str | Path, old: str, new: str) -> tuple[str, str]:
    """What to spell anew in a corpus read as ``read_as`` (spelt ``old`` in it) to name places as a read of ``given``
    (spelt ``new``) would: ``(old, new)``. ``given`` may be ``read_as`` spelt another way, a folder inside it
    holding the same files, or a folder around it."""
    outer, inner = Path(read_as).resolve(), Path(given).resolve()
    if inner != outer and inner.is_relative_to(outer):
        old = str(Path(old) / inner.relative_to(outer))
    elif inner != outer and outer.is_relative_to(inner):
        new = str(Path(new) / outer.relative_to(inner))
    return old, new


def _copy(corpus: Corpus, old: str, new: str) -> Corpus:
    """A corpus whose lists are its own (tokens and instances are frozen and shared), the places its sentences and
    notes name spelt ``new`` where they say ``old`` (nothing respelt when ``old`` is empty or equal)."""

    def respelt(text: str | None) -> str | None:
        return text if text is None or not old or old == new else text.replace(old, new)

    sentences = [
        dataclasses.replace(
            sentence,
            tokens=list(sentence.tokens),
            instances=list(sentence.instances),
            speculation=list(sentence.speculation),
            source=respelt(sentence.source),
        )
        for sentence in corpus.sentences
    ]
    notes = [str(respelt(note)) for note in corpus.notes]
    return dataclasses.replace(corpus, sentences=sentences, notes=notes)
