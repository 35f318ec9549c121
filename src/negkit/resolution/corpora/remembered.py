"""The corpora a process read, kept: reading BioScope or SFU Review takes about a second (XML parsing and
tokenising), and one process often reads the same corpus several times (statistics, then a baseline, then its
splits). :func:`remembered_corpus` wraps a reader so that reading an unchanged file or folder again with the same
options hands out a copy of what was read, instead of parsing it again."""

from __future__ import annotations

import dataclasses
import functools
import os
from pathlib import Path
from typing import Protocol

from negkit.resolution.instances import Corpus

#: How many corpora a process keeps (BioScope's three files and SFU's folder take some 100 MB in all).
KEPT = 4

_ContentKey = tuple[object, ...]


class CorpusReader(Protocol):
    def __call__(
        self, path: str | Path, *, keep_speculation: bool = True, cue_in_scope: bool = False, strict: bool = False
    ) -> Corpus: ...


def remembered_corpus(read: CorpusReader) -> CorpusReader:
    """``read`` with the last :data:`KEPT` corpora kept (``functools.lru_cache``), keyed by the path as given (the
    sentences name it), the size and modification time of every file it covers, and the options; each call gets a
    corpus of its own."""

    @functools.lru_cache(maxsize=KEPT)
    def read_once(content: _ContentKey, path: str, keep_speculation: bool, cue_in_scope: bool, strict: bool) -> Corpus:
        return read(path, keep_speculation=keep_speculation, cue_in_scope=cue_in_scope, strict=strict)

    @functools.wraps(read)
    def reader(
        path: str | Path, *, keep_speculation: bool = True, cue_in_scope: bool = False, strict: bool = False
    ) -> Corpus:
        content = _content_key(Path(path))
        return _copy(read_once(content, str(path), keep_speculation, cue_in_scope, strict))

    return reader


def _content_key(path: Path) -> _ContentKey:
    """The path as given (and the working folder, for a relative one), with the size and modification time of
    the file, or of every file below the folder."""
    where = (str(path), "" if path.is_absolute() else os.getcwd())
    if path.is_dir():
        files = sorted(file for file in path.rglob("*") if file.is_file())
        return (*where, tuple((str(file), *_stamp(file)) for file in files))
    return (*where, _stamp(path) if path.exists() else None)


def _stamp(file: Path) -> tuple[int, int]:
    status = file.stat()
    return (status.st_size, status.st_mtime_ns)


def _copy(corpus: Corpus) -> Corpus:
    """A corpus whose lists are its own (tokens and instances are frozen and shared)."""
    sentences = [
        dataclasses.replace(
            sentence,
            tokens=list(sentence.tokens),
            instances=list(sentence.instances),
            speculation=list(sentence.speculation),
        )
        for sentence in corpus.sentences
    ]
    return dataclasses.replace(corpus, sentences=sentences, notes=list(corpus.notes))
