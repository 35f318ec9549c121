"""Read any negation-resolution corpus into :class:`~negkit.resolution.instances.ResolutionSentence` objects.

The format is chosen from the file: CD-SCO CoNLL (``.txt``/``.conll`` with tab-separated token lines),
BioScope XML (an ``<Annotation>`` root element) or an SFU Review folder or XML file (a ``<DOCUMENT>``
root).
"""

from __future__ import annotations

import re
from pathlib import Path

from negkit.errors import InputFormatError
from negkit.io.textfiles import open_input
from negkit.resolution.corpora.bioscope import read_bioscope
from negkit.resolution.corpora.cdsco import read_cdsco
from negkit.resolution.corpora.sfu import read_sfu
from negkit.resolution.instances import Corpus


def detect_format(path: str | Path) -> str:
    """Return ``"cdsco"``, ``"bioscope"`` or ``"sfu"`` for ``path``, or raise :class:`InputFormatError`."""
    path = Path(path)
    if path.is_dir():
        if any(path.rglob("*.xml")):
            return "sfu"
        raise InputFormatError(path, None, "folder holds no .xml files (expected an SFU Review corpus folder)")
    if not path.exists():
        raise InputFormatError(path, None, "no such file")
    with open_input(path, "corpus file") as handle:
        head = handle.read(4096)
    if head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"<"):
        root = _xml_root_name(head.decode("utf-8", errors="replace"))
        if root == "Annotation":
            return "bioscope"
        if root == "DOCUMENT":
            return "sfu"
        raise InputFormatError(
            path, None, f"XML root element <{root}> is neither BioScope's <Annotation> nor SFU's <DOCUMENT>"
        )
    return "cdsco"


def _xml_root_name(head: str) -> str:
    """Name of the first element in ``head`` (after the XML declaration, comments and DOCTYPE)."""
    match = re.search(r"<([A-Za-z_][\w.:-]*)", re.sub(r"<\?.*?\?>|<!--.*?-->|<!DOCTYPE[^>]*>", "", head, flags=re.S))
    return match.group(1) if match else "?"


def read_corpus(path: str | Path, format: str | None = None) -> Corpus:
    """Read a corpus file (or SFU folder) in any supported format."""
    fmt = format or detect_format(path)
    if fmt == "cdsco":
        return Corpus(str(path), fmt, read_cdsco(path))
    if fmt == "bioscope":
        return read_bioscope(path)
    if fmt == "sfu":
        return read_sfu(path)
    raise InputFormatError(path, None, f"unknown corpus format {fmt!r} (expected cdsco, bioscope or sfu)")
