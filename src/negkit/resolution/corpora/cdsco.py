"""Read and write the *SEM 2012 CD-SCO CoNLL format (Conan Doyle negation corpus).

A file is UTF-8 text with one token per line and an empty line between sentences. A token line has
tab-separated fields: chapter, sentence number, token number, word, lemma, POS, parse fragment, then
either the single field ``***`` (no negation in the sentence) or three fields per negation instance
(cue, scope, negated event; ``_`` for an empty cell). The blind test files have only the first seven
fields ("unannotated"). Cue, scope and event cells hold the word or, for affixes, the part of it that
is annotated (``un`` / ``interesting`` in "uninteresting").

:func:`read_cdsco` returns a :class:`CdscoDocument` (a list of
:class:`~negkit.resolution.instances.ResolutionSentence`) that remembers what :func:`write_cdsco` needs to
reproduce the file byte for byte: whether it had negation columns and how many line feeds follow the
last token line (the training and dev files end without an empty line, the test files with one).

:func:`read_lines` is the raw line-level access shared with the scorers
(:mod:`negkit.resolution.metrics.starsem`, :mod:`negkit.resolution.metrics.nis`), and :func:`check_sentence_fields` the
structural validation both the reader and the scorers' strict mode apply.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from os import PathLike
from typing import TextIO

from negkit.errors import InputFormatError, quoted, shortened
from negkit.io.atomic import atomic_write_bytes
from negkit.io.textfiles import open_input
from negkit.resolution.corpora.cdneg import split_coordinated_negation
from negkit.resolution.instances import NegationInstance, ResolutionSentence, Token, TokenPart

#: Number of fields before the negation columns.
BASE_FIELDS = 7
#: Field 8 of every line of a sentence without negation.
NO_NEGATION = "***"
#: An empty cue, scope or event cell.
EMPTY_CELL = "_"
#: What each of the three fields of a negation instance holds.
TRIPLE_NAMES = ("cue", "scope", "event")


@dataclass
class CdscoLines:
    """The raw lines of a CD-SCO file: ``lines[i]`` is line ``i + 1`` without its line feed.

    A carriage return stays part of the line (as in the official scorer). ``ends_with_newline`` says
    whether the last line was terminated by a line feed.
    """

    path: str
    lines: list[str]
    ends_with_newline: bool = True


def read_lines(path: str | PathLike[str]) -> CdscoLines:
    """Read ``path`` as UTF-8 lines; an empty file or bytes that are not UTF-8 raise :class:`InputFormatError`."""
    with open_input(path, "CD-SCO file", missing="no such file") as handle:
        return lines_from_bytes(handle.read(), str(path))


def lines_from_bytes(data: bytes, path: str) -> CdscoLines:
    """Split the bytes of a CD-SCO file into lines (see :func:`read_lines`)."""
    if not data:
        raise InputFormatError(path, None, "empty file")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise InputFormatError(
            path, line, f"not UTF-8: byte 0x{data[error.start]:02x} at offset {error.start}"
        ) from None
    return lines_from_text(text, path)


def lines_from_text(text: str, path: str = "<text>") -> CdscoLines:
    """Split CD-SCO text into lines (see :func:`read_lines`)."""
    if not text:
        raise InputFormatError(path, None, "empty file")
    lines = text.split("\n")
    ends_with_newline = text.endswith("\n")
    if ends_with_newline:
        lines.pop()
    return CdscoLines(path, lines, ends_with_newline)


def negation_triples(field_count: int) -> int | None:
    """Number of negation instances a line with ``field_count`` fields holds.

    ``0`` for the ``***`` layout (8 fields), ``None`` for an unannotated line (7 fields), ``n`` for
    ``7 + 3n`` fields; raises ``ValueError`` for any other count.
    """
    if field_count == BASE_FIELDS:
        return None
    if field_count == BASE_FIELDS + 1:
        return 0
    extra = field_count - BASE_FIELDS
    if extra > 0 and extra % 3 == 0:
        return extra // 3
    raise ValueError(
        f"unknown cue layout: {field_count} fields (expected 7, 8 with ***, or 7 + 3 per negation instance)"
    )


def check_sentence_fields(
    rows: Sequence[Sequence[str]],
    path: str,
    first_line: int,
    *,
    allow_unannotated: bool = True,
    require_ids: bool = True,
) -> int | None:
    """Validate the fields of one sentence; return its number of instances (``None``: unannotated).

    ``rows[i]`` are the tab-separated fields of line ``first_line + i``. Checked: at least 7 fields;
    no empty field (a stray tab); one known layout (:func:`negation_triples`) shared by all lines;
    ``***`` on every line of an 8-field sentence and in no negation cell otherwise; no space inside a
    negation cell (the official scorer splits cells on spaces); every instance has a cue cell. With
    ``require_ids`` the chapter and sentence number agree on all lines and the token numbers are
    0, 1, 2, ... With ``allow_unannotated=False`` a 7-field sentence is an error too.
    """
    field_count = len(rows[0])
    for offset, fields in enumerate(rows):
        if fields[-1].endswith("\r"):
            raise InputFormatError(
                path,
                first_line + offset,
                "the line ends with a carriage return (Windows line ends); convert the file to LF line ends",
            )
    if field_count < 2:
        _raise_line_problem(rows, 0, path, first_line, field_count)
    chapter, number = rows[0][0], rows[0][1]
    for offset, fields in enumerate(rows):
        if len(fields) == field_count >= BASE_FIELDS and "" not in fields:
            if not require_ids or (fields[0] == chapter and fields[1] == number and fields[2] == str(offset)):
                continue
        _raise_line_problem(rows, offset, path, first_line, field_count)
    try:
        triples = negation_triples(field_count)
    except ValueError as error:
        raise InputFormatError(path, first_line, str(error)) from None
    if triples is None:
        if not allow_unannotated:
            raise InputFormatError(
                path,
                first_line,
                "sentence has no negation columns (7 fields); write *** in field 8 when it has no negation",
            )
        return None
    if triples == 0:
        for offset, fields in enumerate(rows):
            if fields[BASE_FIELDS] != NO_NEGATION:
                raise InputFormatError(
                    path, first_line + offset, f"8 fields but field 8 is {quoted(fields[BASE_FIELDS])} (expected ***)"
                )
        return 0
    has_cue = [False] * triples
    for offset, fields in enumerate(rows):
        cells = fields[BASE_FIELDS:]
        if NO_NEGATION in cells or " " in "\t".join(cells):
            column = next(i for i, cell in enumerate(cells) if cell == NO_NEGATION or " " in cell)
            cell = cells[column]
            what = "***" if cell == NO_NEGATION else "a space"
            raise InputFormatError(
                path,
                first_line + offset,
                f"field {BASE_FIELDS + column + 1} ({quoted(cell)}) holds {what} inside a negation column",
            )
        for k, cue in enumerate(cells[::3]):
            if cue != EMPTY_CELL:
                has_cue[k] = True
    for k, present in enumerate(has_cue):
        if not present:
            first = BASE_FIELDS + 3 * k + 1
            raise InputFormatError(
                path, first_line, f"negation instance {k + 1} (fields {first}-{first + 2}) has no cue cell on any token"
            )
    return triples


def _raise_line_problem(
    rows: Sequence[Sequence[str]], offset: int, path: str, first_line: int, field_count: int
) -> None:
    """Raise the error for line ``offset`` of a sentence that failed the quick checks."""
    fields = rows[offset]
    line = first_line + offset
    if len(fields) < BASE_FIELDS:
        hint = " (the line ends with a carriage return)" if fields[-1].endswith("\r") else ""
        raise InputFormatError(path, line, f"expected at least 7 tab-separated fields, found {len(fields)}{hint}")
    if "" in fields:
        raise InputFormatError(path, line, f"field {fields.index('') + 1} is empty (stray tab?)")
    if len(fields) != field_count:
        raise InputFormatError(
            path,
            line,
            f"inconsistent fields within a sentence: {len(fields)} fields, "
            f"the sentence's first line (line {first_line}) has {field_count}",
        )
    if fields[0] != rows[0][0] or fields[1] != rows[0][1]:
        raise InputFormatError(
            path,
            line,
            f"inconsistent fields within a sentence: chapter/sentence {shortened(fields[0], 40)}/{shortened(fields[1], 20)}, "
            f"the sentence started as {shortened(rows[0][0], 40)}/{shortened(rows[0][1], 20)} (missing empty line?)",
        )
    raise InputFormatError(path, line, f"token number {quoted(fields[2], 20)}, expected {offset}")


class CdscoDocument(list[ResolutionSentence]):
    """The sentences of a CD-SCO file plus the layout details :func:`write_cdsco` reproduces.

    ``annotated`` is False for files without negation columns (the blind test files, 7 fields).
    ``final_newlines`` counts the line feeds after the last token line: 1 (training/dev: no final
    empty line), 2 (test files: one final empty line) or 0 (last line not terminated).
    """

    def __init__(
        self, sentences: Iterable[ResolutionSentence] = (), *, annotated: bool = True, final_newlines: int = 2
    ) -> None:
        super().__init__(sentences)
        self.annotated = annotated
        self.final_newlines = final_newlines


def _part_start(word: str, cell: str) -> int | None:
    """Offset of ``cell`` inside ``word``: prefix, then suffix, then first occurrence; None if absent."""
    if word.startswith(cell):
        return 0
    if word.endswith(cell):
        return len(word) - len(cell)
    position = word.find(cell)
    return None if position < 0 else position


def _sentence_blocks(source: CdscoLines) -> tuple[list[tuple[int, list[str]]], int]:
    """Split lines into (first line number, lines) blocks; return them and the final line-feed count."""
    lines = source.lines
    path = source.path
    blocks: list[tuple[int, list[str]]] = []
    current: list[str] = []
    start = 1
    for number, line in enumerate(lines, start=1):
        if line:
            if not current:
                start = number
            current.append(line)
            continue
        if not current:
            where = "starts with an empty line" if number == 1 else "two consecutive empty lines (empty sentence)"
            raise InputFormatError(path, number, where)
        blocks.append((start, current))
        current = []
    if current:
        blocks.append((start, current))
        final_newlines = 1 if source.ends_with_newline else 0
    else:  # the text ended with an empty line ("...\n\n")
        final_newlines = 2
    if not blocks:
        raise InputFormatError(path, None, "no token lines")
    return blocks, final_newlines


def _parse_sentence(rows: list[list[str]], triples: int | None, path: str, first_line: int) -> ResolutionSentence:
    tokens = [Token(text=f[3], lemma=f[4], pos=f[5], syntax=f[6]) for f in rows]
    instances: list[NegationInstance] = []
    for k in range(triples or 0):
        columns = [BASE_FIELDS + 3 * k + j for j in range(3)]
        components: list[list[TokenPart]] = [[], [], []]
        for index, fields in enumerate(rows):
            word = fields[3]
            for j, column in enumerate(columns):
                cell = fields[column]
                if cell != EMPTY_CELL:
                    components[j].append(TokenPart(index=index, text=cell, start=_part_start(word, cell)))
        cue, scope, event = (tuple(parts) for parts in components)
        instances.append(NegationInstance(cue=cue, scope=scope, event=event))
    chapter, number = rows[0][0], rows[0][1]
    return ResolutionSentence(
        tokens=tokens,
        instances=instances,
        sentence_id=f"{chapter}/{number}",
        chapter=chapter,
        number=number,
        source=path,
        line=first_line,
    )


def parse_cdsco(source: CdscoLines) -> CdscoDocument:
    """Turn the raw lines of a CD-SCO file into sentences (see :func:`read_cdsco`)."""
    blocks, final_newlines = _sentence_blocks(source)
    sentences: list[ResolutionSentence] = []
    annotated: bool | None = None
    for first_line, block in blocks:
        rows = [line.split("\t") for line in block]
        triples = check_sentence_fields(rows, source.path, first_line)
        has_columns = triples is not None
        if annotated is None:
            annotated = has_columns
        elif annotated != has_columns:
            raise InputFormatError(
                source.path,
                first_line,
                "sentence has "
                + ("negation columns" if has_columns else "no negation columns (7 fields)")
                + " unlike the sentences before it",
            )
        sentences.append(_parse_sentence(rows, triples, source.path, first_line))
    return CdscoDocument(sentences, annotated=bool(annotated), final_newlines=final_newlines)


def read_cdsco(path: str | PathLike[str], *, cd_neg: bool = False) -> CdscoDocument:
    """Read a CD-SCO CoNLL file (gold, system output or blind test) into sentences.

    Every token keeps its word, lemma, POS and parse fragment; every triple of negation columns
    becomes a :class:`~negkit.resolution.instances.NegationInstance` whose parts carry the cell text and
    its offset in the word (``None`` if the cell is not a substring of the word). Raises
    :class:`InputFormatError` (file, line, problem) for an empty file, bytes that are not UTF-8,
    empty sentences, a wrong or inconsistent column count, an unknown cue layout or an instance
    without a cue.

    ``cd_neg=True`` splits every coordinated negation ("neither ... nor") into one instance per negator, the
    CD-neg reading of Sineva et al. 2021 (:mod:`negkit.resolution.corpora.cdneg`).
    """
    document = parse_cdsco(read_lines(path))
    if not cd_neg:
        return document
    return CdscoDocument(
        split_coordinated_negation(document), annotated=document.annotated, final_newlines=document.final_newlines
    )


def _cells(parts: tuple[TokenPart, ...], what: str, sentence: ResolutionSentence) -> dict[int, str]:
    cells: dict[int, str] = {}
    for part in parts:
        if part.index in cells:
            raise ValueError(f"sentence {sentence.sentence_id}: two {what} parts on token {part.index}")
        if not 0 <= part.index < len(sentence.tokens):
            raise ValueError(f"sentence {sentence.sentence_id}: {what} part on token {part.index} outside the sentence")
        cells[part.index] = part.text
    return cells


def _checked(value: str, what: str, sentence: ResolutionSentence) -> str:
    if not value or "\t" in value or "\n" in value:
        raise ValueError(f"sentence {sentence.sentence_id}: {what} {value!r} cannot be written as a CD-SCO field")
    return value


def format_sentence(sentence: ResolutionSentence, position: int = 0, *, annotated: bool = True) -> list[str]:
    """The token lines of one sentence (without line feeds).

    Chapter and sentence number default to the sentence id and ``position`` when the sentence has none;
    missing lemma, POS or parse fragment are written as ``_``.
    """
    chapter = sentence.chapter if sentence.chapter is not None else (sentence.sentence_id or EMPTY_CELL)
    number = sentence.number if sentence.number is not None else str(position)
    if not annotated and sentence.instances:
        raise ValueError(
            f"sentence {sentence.sentence_id}: has negation instances but annotated=False (a document read "
            "from a blind file is unannotated: pass annotated=True to write negation columns)"
        )
    columns = [
        (
            _cells(instance.cue, "cue", sentence),
            _cells(instance.scope, "scope", sentence),
            _cells(instance.event, "event", sentence),
        )
        for instance in sentence.instances
    ]
    lines = []
    for index, token in enumerate(sentence.tokens):
        fields = [
            _checked(chapter, "chapter", sentence),
            _checked(number, "sentence number", sentence),
            str(index),
            _checked(token.text, "word", sentence),
            _checked(token.lemma or EMPTY_CELL, "lemma", sentence),
            _checked(token.pos or EMPTY_CELL, "POS", sentence),
            _checked(token.syntax or EMPTY_CELL, "parse fragment", sentence),
        ]
        if annotated:
            if not columns:
                fields.append(NO_NEGATION)
            for component_cells in columns:
                for cells, name in zip(component_cells, TRIPLE_NAMES):
                    cell = cells.get(index)
                    fields.append(EMPTY_CELL if cell is None else _checked(cell, name, sentence))
        lines.append("\t".join(fields))
    return lines


def format_cdsco(
    sentences: Iterable[ResolutionSentence], *, annotated: bool | None = None, final_newlines: int | None = None
) -> str:
    """The text of a CD-SCO file for ``sentences`` (see :func:`write_cdsco`)."""
    if annotated is None:
        annotated = getattr(sentences, "annotated", True)
    if final_newlines is None:
        final_newlines = getattr(sentences, "final_newlines", 2)
    if final_newlines not in (0, 1, 2):
        raise ValueError(f"final_newlines must be 0, 1 or 2, not {final_newlines}")
    blocks = ["\n".join(format_sentence(s, i, annotated=annotated)) for i, s in enumerate(sentences)]
    if not blocks:
        return ""
    return "\n\n".join(blocks) + "\n" * final_newlines


def write_cdsco(
    sentences: Iterable[ResolutionSentence],
    path_or_stream: str | PathLike[str] | TextIO,
    *,
    annotated: bool | None = None,
    final_newlines: int | None = None,
) -> None:
    """Write sentences as a CD-SCO file (to a path, or to a text stream opened with ``newline=""``).

    Sentences without instances get ``***``; each instance gets a cue, scope and event column with
    its parts' texts (``_`` where it has none). ``annotated=False`` writes only the seven base fields
    (blind-test layout). ``final_newlines`` (1: no final empty line, 2: one final empty line) and
    ``annotated`` default to what :func:`read_cdsco` recorded on a :class:`CdscoDocument`, otherwise
    to an annotated file ending with an empty line, as the *SEM test files do. Writing what
    :func:`read_cdsco` read gives the same bytes. Raises ``ValueError`` for sentences that cannot be
    written (two parts of one component on the same token, a field with a tab, an empty word).
    """
    text = format_cdsco(sentences, annotated=annotated, final_newlines=final_newlines)
    if isinstance(path_or_stream, (str, PathLike)):
        atomic_write_bytes(path_or_stream, text.encode("utf-8"))
    else:
        path_or_stream.write(text)
