"""The raw TIND release: one ``#NN.Pattern.txt`` file per pattern, in a folder or a password-protected zip.

Format (one group after another)::

    % Test 000001<TAB>Source: hyp(00000001-n kite_1,00000002-n toy_1)<TAB>Distractor: spoon [00000003-n]
    <blank>
    1-1<TAB>affirmation<TAB>none<TAB>none<TAB>Input     <TAB>T<TAB>A kite is a toy.
    ...
    <blank>

A sentence line has 7 TAB-separated fields: ``template-variation``, negation_type, semantic_type,
syntactic_scope, kind (``Input`` padded with spaces to 10 characters, ``Distractor``, ``Distractor-1``,
``Distractor-2``), ``T``/``F`` and the sentence. :func:`write_tind_raw` writes this layout back byte for byte.

The authors ship the files in an encrypted zip (password ``hitz``) so that the sentences stay out of web
crawls; :func:`read_tind_raw` reads such a zip in place, without extracting it. Legacy ZipCrypto zips are
read with the standard library, AES zips with ``pyzipper`` (the ``zip`` extra, which also brings a ZipCrypto
decrypter in C: :mod:`negkit.io.zipcrypto`; without it the standard library decrypts in Python, some 2 seconds
more per read). Decrypting and parsing the release takes a second or more, so a process keeps the groups of the last
zip it read, keyed by the zip's path, size, modification time and password: reading an unchanged zip again (several
TIND tasks or runs in one process) copies them instead.
"""

from __future__ import annotations

import dataclasses
import re
import zipfile
import zlib
from collections import Counter
from collections.abc import Iterable
from pathlib import Path, PurePosixPath

from negkit.benchmarks.tind.types import (
    KINDS,
    PATTERN_NAMES,
    DistractorRef,
    SourceSynset,
    SourceTriple,
    SynsetId,
    TindGroup,
    TruthItem,
    make_item_id,
)
from negkit.errors import DataNotFoundError, InputFormatError, NegkitError, quoted
from negkit.io.atomic import atomic_write_bytes, make_folder
from negkit.io.textfiles import read_bytes
from negkit.io.zipcrypto import read_encrypted_member

#: The password the authors publish for their zip (and the one of ``raw-public.zip``).
DEFAULT_PASSWORD = "hitz"

#: The values of a sentence line's negation columns (the paper's categories; ``none`` for affirmations).
NEGATION_CATEGORIES: dict[str, tuple[str, ...]] = {
    "negation type": ("affirmation", "verbal", "non_verbal"),
    "semantic type": ("none", "analytic", "synthetic"),
    "syntactic scope": ("none", "clausal", "subclausal"),
}
PATTERN_FILE_RE = re.compile(r"#(\d{2})\.Pattern\.txt")
_HEADER_TEST_RE = re.compile(r"% Test (\d+)")
_SOURCE_RE = re.compile(r"Source: ([A-Za-z_]+)\((.*)\)")
_SOURCE_SYNSET_RE = re.compile(r"(\d{8})-([nvars]) (.+?_\d+)(?:,(?=\d{8}-)|$)")
_SYNSET_FORM_RE = re.compile(r"(\d{8})-([nvars]) \[(.*)\]")
_LEMMA_PAIR_RE = re.compile(r"\((.+?),(\d+)\)(?:,|$)")
_WORD_FORM_RE = re.compile(r"(.+) \[(\d{8}-[nvars](?:,\d{8}-[nvars])*)\]")
_INPUT_FIELD = "Input".ljust(10)
_AES_COMPRESSION = 99
#: The groups of the last zip :func:`read_tind_raw` read: (path, size, modification time, password) -> groups.
_LAST_ZIP: dict[tuple[str, int, int, str], list[TindGroup]] = {}


class TindSource:
    """The files of a raw TIND release: a folder, a zip (read in place), or a single pattern file."""

    def __init__(self, path: str | Path, password: str = DEFAULT_PASSWORD) -> None:
        self.path = Path(path)
        self._password = password
        self._zip: zipfile.ZipFile | None = None
        if not self.path.exists():
            raise DataNotFoundError(f"{self.path}: no such file or folder (TIND raw data)")
        if self.path.is_file() and zipfile.is_zipfile(self.path):
            try:
                self._zip = _open_zip(self.path, password)
            except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError, EOFError) as error:
                raise InputFormatError(self.path, None, f"damaged zip file ({error})") from None
            self.names = [info.filename for info in self._zip.infolist() if not info.is_dir()]
        elif self.path.suffix.lower() == ".zip":
            raise InputFormatError(self.path, None, "not a zip file, or a zip cut short (no central directory)")
        elif self.path.is_dir():
            members = sorted(self.path.rglob("*"))
            self.names = [str(p.relative_to(self.path).as_posix()) for p in members if p.is_file()]
            for member in members:
                if PATTERN_FILE_RE.fullmatch(member.name) and not member.is_file():
                    raise InputFormatError(member, None, "is a folder (or not a regular file), expected a pattern file")
        else:
            self.names = [self.path.name]

    def location(self, name: str) -> str:
        """How error messages name member ``name``: ``archive.zip:member`` for zips, the file path otherwise."""
        if self._zip is not None:
            return f"{self.path}:{name}"
        return str(self.path / name) if self.path.is_dir() else str(self.path)

    def read_text(self, name: str) -> str:
        if self._zip is not None:
            try:
                data = self._read_member(name)
            except RuntimeError as error:  # zipfile: "Bad password for file ..."
                raise NegkitError(f"{self.path}: cannot decrypt {name}: {error}") from None
            except (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError) as error:
                raise InputFormatError(self.location(name), None, f"damaged zip member ({error})") from None
        else:
            data = read_bytes(self.path / name if self.path.is_dir() else self.path, "TIND pattern file")
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as error:
            raise InputFormatError(self.location(name), None, f"not UTF-8 text ({error})") from error

    def _read_member(self, name: str) -> bytes:
        """A zip member's bytes: ZipCrypto decrypted in C where fast-zip-decryption is installed
        (:mod:`negkit.io.zipcrypto`), else by :mod:`zipfile` (or pyzipper, for AES)."""
        assert self._zip is not None
        if type(self._zip) is zipfile.ZipFile:  # not pyzipper's AESZipFile (its members are AES-encrypted)
            fast = read_encrypted_member(self.path, self._zip.getinfo(name), self._password.encode("utf-8"))
            if fast is not None:
                return fast
        return self._zip.read(name)

    def zip_key(self) -> tuple[str, int, int, str] | None:
        """What identifies the content of a zip source (path, size, modification time, password); ``None`` for a
        folder or a single file."""
        if self._zip is None:
            return None
        status = self.path.stat()
        return (str(self.path.resolve()), status.st_size, status.st_mtime_ns, self._password)

    def find(self, basename: str) -> str | None:
        """The one member whose file name is ``basename``; ``None`` when there is none."""
        matches = [name for name in self.names if PurePosixPath(name).name == basename]
        if len(matches) > 1:
            raise InputFormatError(self.path, None, f"several files named {basename}: {', '.join(matches)}")
        return matches[0] if matches else None

    def pattern_files(self) -> dict[int, str]:
        """Pattern number -> member name of its ``#NN.Pattern.txt`` file."""
        found: dict[int, str] = {}
        for name in self.names:
            match = PATTERN_FILE_RE.fullmatch(PurePosixPath(name).name)
            if not match:
                continue
            number = int(match.group(1))
            if number in found:
                raise InputFormatError(self.path, None, f"two files for pattern {number:02d}: {found[number]}, {name}")
            found[number] = name
        if not found:
            raise InputFormatError(self.path, None, "no #NN.Pattern.txt file found (expected a TIND raw folder or zip)")
        return dict(sorted(found.items()))


def _open_zip(path: Path, password: str) -> zipfile.ZipFile:
    archive = zipfile.ZipFile(path)
    if any(info.compress_type == _AES_COMPRESSION for info in archive.infolist()):
        archive.close()
        try:
            import pyzipper  # optional library, imported when used
        except ImportError as error:
            raise NegkitError(f"{path} is AES-encrypted; install pyzipper (pip install 'negkit[zip]')") from error
        archive = pyzipper.AESZipFile(path)
    archive.setpassword(password.encode("utf-8"))
    return archive


def read_tind_raw(path: str | Path, password: str = DEFAULT_PASSWORD) -> list[TindGroup]:
    """Read every group of a raw TIND release, patterns in number order, groups in file order.

    ``path`` is a folder holding ``#NN.Pattern.txt`` files (at any depth), the authors' password-protected zip
    (read in place; ``password`` defaults to the published ``hitz``), or one pattern file.
    """
    source = TindSource(path, password)
    key = source.zip_key()
    if key is None or key not in _LAST_ZIP:
        groups: list[TindGroup] = []
        for pattern_id, name in source.pattern_files().items():
            groups += parse_pattern_text(source.read_text(name), pattern_id, source.location(name))
        if key is None:
            return groups
        _LAST_ZIP.clear()
        _LAST_ZIP[key] = groups
    # each caller gets groups of its own (the items themselves are frozen)
    return [dataclasses.replace(group, items=list(group.items)) for group in _LAST_ZIP[key]]


def parse_pattern_text(text: str, pattern_id: int, location: str = "<text>") -> list[TindGroup]:
    """Parse the content of one ``#NN.Pattern.txt`` file; ``location`` names it in error messages."""
    if pattern_id not in PATTERN_NAMES:
        raise InputFormatError(location, None, f"unknown pattern number {pattern_id} (expected 1-11)")
    pattern = PATTERN_NAMES[pattern_id]
    if not text.strip():
        raise InputFormatError(location, None, "empty pattern file (no group)")
    lines = text.split("\n")
    if not text.endswith("\n"):
        raise InputFormatError(location, len(lines), "the file ends in the middle of a line (cut off?)")
    groups: list[TindGroup] = []
    header_lines: list[int] = []
    first_line: dict[int, int] = {}
    group: TindGroup | None = None
    items: list[TruthItem] = []
    for line_number, line in enumerate(lines, start=1):
        if not line:
            continue
        if line.startswith("%"):
            if group is not None and not items:
                raise InputFormatError(location, header_lines[-1], "group without sentence lines")
            group = parse_header(line, pattern_id, location, line_number)
            if group.group_id in first_line:
                raise InputFormatError(
                    location,
                    line_number,
                    f"group {group.group_id} appears twice (first at line {first_line[group.group_id]})",
                )
            first_line[group.group_id] = line_number
            items = group.items
            groups.append(group)
            header_lines.append(line_number)
            continue
        if group is None:
            raise InputFormatError(location, line_number, "sentence line before the first '% Test' header")
        fields = line.split("\t")
        if len(fields) != 7:
            raise InputFormatError(location, line_number, f"expected 7 TAB-separated fields, found {len(fields)}")
        template_id, negation_type, semantic_type, syntactic_scope, kind, label, sentence = fields
        kind = kind.rstrip(" ")
        if kind not in KINDS:
            raise InputFormatError(
                location, line_number, f"unknown kind {quoted(kind, 30)} (expected one of {', '.join(KINDS)})"
            )
        for column, value in (
            ("negation type", negation_type),
            ("semantic type", semantic_type),
            ("syntactic scope", syntactic_scope),
        ):
            if value not in NEGATION_CATEGORIES[column]:
                raise InputFormatError(
                    location,
                    line_number,
                    f"unknown {column} {quoted(value, 30)} (expected one of {', '.join(NEGATION_CATEGORIES[column])})",
                )
        if label not in ("T", "F"):
            raise InputFormatError(location, line_number, f"label must be T or F, found {quoted(label, 20)}")
        if not sentence.strip():
            raise InputFormatError(location, line_number, "empty sentence")
        items.append(
            TruthItem(
                item_id=make_item_id(pattern_id, group.group_id, len(items)),
                group_id=group.group_id,
                pattern_id=pattern_id,
                pattern=pattern,
                template_id=template_id,
                negation_type=negation_type,
                semantic_type=semantic_type,
                syntactic_scope=syntactic_scope,
                kind=kind,
                is_distractor=kind != "Input",
                label=label == "T",
                sentence=sentence,
            )
        )
    if group is not None and not items:
        raise InputFormatError(location, header_lines[-1], "group without sentence lines")
    check_group_sizes(groups, header_lines, location)
    return groups


def check_group_sizes(groups: list[TindGroup], header_lines: list[int], location: str) -> None:
    """All groups of one pattern file hold the same number of sentences (each instantiates every template of the
    pattern): a group of another size is a group missing (or with extra) sentence lines, an error naming its
    header line. (A file of one group cannot be checked so; ``negkit tind check`` rebuilds groups from headers.)"""
    sizes = Counter(len(group.items) for group in groups)
    usual, _ = sizes.most_common(1)[0]
    for group, line in zip(groups, header_lines):
        if len(group.items) != usual and sizes[usual] > 1:
            raise InputFormatError(
                location,
                line,
                f"group {group.group_id} has {len(group.items)} sentences, the other "
                f"groups of this file {usual} (missing lines?)",
            )


def parse_header(line: str, pattern_id: int, location: str = "<text>", line_number: int | None = None) -> TindGroup:
    """Parse a ``% Test`` header line into an empty :class:`TindGroup` (its items are added by the caller)."""
    fields = line.split("\t")

    def fail(problem: str) -> InputFormatError:
        return InputFormatError(location, line_number, f"bad group header: {problem}")

    test = _HEADER_TEST_RE.fullmatch(fields[0])
    if not test:
        raise fail(f"expected '% Test NNNNNN', found {fields[0]!r}")
    if len(fields) < 3:
        raise fail("expected a Source field and at least one Distractor field")
    source_match = _SOURCE_RE.fullmatch(fields[1])
    if not source_match:
        raise fail(f"expected 'Source: relation(...)', found {fields[1]!r}")
    synsets = _SOURCE_SYNSET_RE.findall(source_match.group(2))
    source = SourceTriple(
        relation=source_match.group(1),
        synsets=tuple(SourceSynset(int(offset), pos, lemma_sense) for offset, pos, lemma_sense in synsets),
    )
    if not synsets or source.header_text() != fields[1][len("Source: ") :]:
        raise fail(f"cannot parse the source synsets of {fields[1]!r}")
    distractors = tuple(_parse_distractor(field, fail) for field in fields[2:])
    return TindGroup(
        group_id=int(test.group(1)),
        pattern_id=pattern_id,
        pattern=PATTERN_NAMES[pattern_id],
        source=source,
        distractors=distractors,
        header=line,
    )


def _parse_distractor(field: str, fail) -> DistractorRef:
    label, separator, value = field.partition(": ")
    if not separator or label not in ("Distractor", "Distractor-1", "Distractor-2"):
        raise fail(f"expected 'Distractor[-1|-2]: ...', found {field!r}")
    synset_form = _SYNSET_FORM_RE.fullmatch(value)
    if synset_form:
        lemmas = tuple((lemma, int(sense)) for lemma, sense in _LEMMA_PAIR_RE.findall(synset_form.group(3)))
        parsed = DistractorRef(label, (SynsetId(int(synset_form.group(1)), synset_form.group(2)),), None, lemmas)
    else:
        word_form = _WORD_FORM_RE.fullmatch(value)
        if not word_form:
            raise fail(f"cannot parse distractor {value!r}")
        synsets = tuple(SynsetId(int(s[:8]), s[9:]) for s in word_form.group(2).split(","))
        parsed = DistractorRef(label, synsets, word_form.group(1))
    if parsed.header_text() != value:
        raise fail(f"cannot parse distractor {value!r}")
    return parsed


def format_sentence_line(item: TruthItem) -> str:
    """The raw line of one sentence (without its newline)."""
    kind = _INPUT_FIELD if item.kind == "Input" else item.kind
    label = "T" if item.label else "F"
    return "\t".join(
        (item.template_id, item.negation_type, item.semantic_type, item.syntactic_scope, kind, label, item.sentence)
    )


def format_pattern_text(groups: Iterable[TindGroup]) -> str:
    """The content of a ``#NN.Pattern.txt`` file holding ``groups`` in the given order."""
    parts: list[str] = []
    for group in groups:
        parts.append(group.header if group.header is not None else group.header_line())
        parts.append("\n\n")
        parts.append("\n".join(format_sentence_line(item) for item in group.items))
        parts.append("\n\n")
    return "".join(parts)


def write_tind_raw(groups: Iterable[TindGroup], folder: str | Path) -> list[Path]:
    """Write groups as raw ``#NN.Pattern.txt`` files in ``folder`` (created if needed); return the files written.

    Groups keep their order within each pattern. Groups read by :func:`read_tind_raw` are written back byte
    for byte. Only the patterns present in ``groups`` get a file.
    """
    by_pattern: dict[int, list[TindGroup]] = {}
    for group in groups:
        by_pattern.setdefault(group.pattern_id, []).append(group)
    folder = Path(folder)
    make_folder(folder)
    written = []
    for pattern_id in sorted(by_pattern):
        path = folder / f"#{pattern_id:02d}.Pattern.txt"
        atomic_write_bytes(path, format_pattern_text(by_pattern[pattern_id]).encode("utf-8"))
        written.append(path)
    return written
