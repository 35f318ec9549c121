"""Read any negation-resolution corpus into :class:`~negkit.data.resolution.ResolutionSentence` objects.

The format is chosen from the file: CD-SCO CoNLL (``.txt``/``.conll`` with tab-separated token lines),
BioScope XML (a ``<Annotation>``/``<DocumentSet>`` root) or an SFU Review folder or XML file.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from negkit.data.resolution import ResolutionSentence
from negkit.errors import InputFormatError


@dataclass
class Corpus:
    """Sentences read from one file or folder, plus what could not be mapped onto tokens."""

    path: str
    format: str
    sentences: list[ResolutionSentence]
    unmapped: int = 0
    notes: list[str] = field(default_factory=list)


def detect_format(path: str | Path) -> str:
    """Return ``"cdsco"``, ``"bioscope"`` or ``"sfu"`` for ``path``, or raise :class:`InputFormatError`."""
    path = Path(path)
    if path.is_dir():
        if any(path.rglob("*.xml")):
            return "sfu"
        raise InputFormatError(path, None, "folder holds no .xml files (expected an SFU Review corpus folder)")
    if not path.exists():
        raise InputFormatError(path, None, "no such file")
    with open(path, "rb") as handle:
        head = handle.read(4096)
    if head.lstrip().startswith(b"<"):
        text = head.decode("utf-8", errors="replace")
        if "<Annotation" in text or "<DocumentSet" in text or "<Document" in text and "<sentence" in text.lower():
            return "bioscope"
        return "sfu"
    return "cdsco"


def read_corpus(path: str | Path, format: str | None = None) -> Corpus:
    """Read a corpus file (or SFU folder) in any supported format."""
    fmt = format or detect_format(path)
    if fmt == "cdsco":
        from negkit.data.cdsco import read_cdsco

        return Corpus(str(path), fmt, read_cdsco(path))
    if fmt == "bioscope":
        from negkit.data.bioscope import read_bioscope

        return read_bioscope(path)
    if fmt == "sfu":
        from negkit.data.sfu import read_sfu

        return read_sfu(path)
    raise InputFormatError(path, None, f"unknown corpus format {fmt!r} (expected cdsco, bioscope or sfu)")
