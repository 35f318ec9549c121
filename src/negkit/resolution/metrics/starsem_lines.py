"""Line-level reading and the input checks of the *SEM 2012 scorer (passes 1 and 2 of ``eval.cd-sco.pl``).

The official script reads both files line by line and splits fields the Perl way (trailing empty
fields dropped); :class:`SplitFile` does that once per file. :func:`validate_system` runs the official
checks (line alignment, system column counts, ``***`` consistency) and, with ``strict``, the
specification's recommended ones (no 7-field sentences, no 8-field line without ``***``, no empty
sentence, no empty field except trailing ones, which the official scorer drops, no space or ``***`` in a
negation cell, a cue in every instance, gold included; system lines past the gold file's end are ignored).
Both :mod:`negkit.resolution.metrics.starsem` and :mod:`negkit.resolution.metrics.nis` validate with it.
"""

from __future__ import annotations

from collections.abc import Sequence

from negkit.errors import InputFormatError, quoted
from negkit.resolution.corpora.cdsco import NO_NEGATION, CdscoLines, check_sentence_fields

#: 0-based index of field 8, the first negation field.
NEGATION_START = 7


def perl_split(line: str, separator: str) -> list[str]:
    """Split like Perl's ``split /SEP/``: trailing empty fields are dropped."""
    parts = line.split(separator)
    while parts and parts[-1] == "":
        parts.pop()
    return parts


def perl_view(raw: list[str]) -> list[str]:
    """The Perl view of an already tab-split line (trailing empty fields dropped)."""
    return raw if raw[-1] != "" else perl_split("\t".join(raw), "\t")


def field_at(parts: Sequence[str], index: int) -> str:
    """A field, or ``""`` where Perl would see ``undef``."""
    return parts[index] if index < len(parts) else ""


class SplitFile:
    """A raw CD-SCO file with every line split on tabs once (trailing empty fields kept)."""

    def __init__(self, source: CdscoLines, like: SplitFile | None = None) -> None:
        """Split ``source``; lines identical to the same line of ``like`` share its split (never mutated)."""
        self.source = source
        self.path = source.path
        self.lines = source.lines
        if like is None:
            self.raw = [line.split("\t") for line in source.lines]
            self.same_as_like = [False] * len(source.lines)
            return
        other_lines, other_raw = like.lines, like.raw
        shared = len(other_lines)
        self.same_as_like = [i < shared and line == other_lines[i] for i, line in enumerate(source.lines)]
        self.raw = [
            other_raw[i] if same else line.split("\t")
            for i, (line, same) in enumerate(zip(source.lines, self.same_as_like))
        ]


def _check_alignment(gold: SplitFile, system: SplitFile) -> None:
    """Pass 1: blank lines and fields 1-4 of every gold line against the same system line."""
    for index, (gold_line, system_line) in enumerate(zip(gold.lines, system.lines)):
        if gold_line == system_line:
            continue
        if gold_line == "":
            raise InputFormatError(
                system.path,
                index + 1,
                "blank line in the gold file is not a blank line in the system file"
                + (
                    " (it holds a carriage return: CRLF line ends; convert the file to LF line ends)"
                    if system_line == "\r"
                    else ""
                ),
            )
        gold_parts, system_parts = gold.raw[index][:4], system.raw[index][:4]
        if gold_parts == system_parts:
            continue
        for column, name in enumerate(("chapter", "sentence number", "token number", "word")):
            gold_value, system_value = field_at(gold_parts, column), field_at(system_parts, column)
            if gold_value != system_value:
                raise InputFormatError(
                    system.path,
                    index + 1,
                    f"mismatch with the gold file in the {name}: system {quoted(system_value)}, gold "
                    f"{quoted(gold_value)} (gold chapter {quoted(field_at(gold_parts, 0), 40)}, sentence "
                    f"{quoted(field_at(gold_parts, 1), 20)}, token {quoted(field_at(gold_parts, 2), 20)})",
                )
    if len(system.lines) < len(gold.lines):
        raise InputFormatError(
            system.path,
            len(system.lines) + 1,
            f"system file is shorter than the gold file ({len(system.lines)} lines, gold {gold.path} has "
            f"{len(gold.lines)})",
        )


def _check_system_format(system: SplitFile) -> None:
    """Pass 2 as the official script does it: field counts per line, ``***`` at interior positions."""
    column8: list[str | None] = []
    sentence_start = 1
    field_count = -1
    for index, line in enumerate(system.lines):
        number = index + 1
        if line == "":
            for i in range(1, len(column8) - 1):
                if column8[i] == NO_NEGATION:
                    for j in (i - 1, i + 1):
                        if column8[j] != NO_NEGATION:
                            raise InputFormatError(
                                system.path,
                                sentence_start + j,
                                f"inconsistent column 8: token {i} has *** but token {j} has {quoted(column8[j])}",
                            )
            column8 = []
            field_count = -1
            sentence_start = number + 1
            continue
        parts = system.raw[index]
        if parts[-1] == "":
            parts = perl_view(parts)
        column8.append(parts[NEGATION_START] if len(parts) > NEGATION_START else None)
        if field_count == -1:
            field_count = len(parts)
        if field_count != len(parts):
            raise InputFormatError(
                system.path,
                number,
                f"inconsistent number of columns: {len(parts)} fields, earlier lines of the sentence have {field_count}",
            )
        if field_count != 8 and (field_count - 1) % 3 != 0:
            raise InputFormatError(
                system.path,
                number,
                f"incorrect number of columns: {field_count} fields; there should be 3 columns per negation cue "
                "(8 fields with ***, or 7 + 3 per instance)",
            )


def _check_structure(
    source: SplitFile, *, role: str, checked_like: bool = False, line_limit: int | None = None
) -> None:
    """Strict checks (spec Recommendations) on every sentence of ``source``.

    Fields are seen as the official scorer sees them (trailing empty fields dropped, spec 2.1). With
    ``checked_like``, sentences whose lines all equal the lines of the (already checked) file
    ``source`` was split like are skipped. Lines from ``line_limit`` on are not checked: the official
    scorer never reads system lines beyond the gold file's last line (spec 2.1).
    """
    rows: list[list[str]] = []
    start = 1
    total = len(source.lines) if line_limit is None else min(line_limit, len(source.lines))
    all_same = True
    for index in range(total + 1):
        if index < total and source.lines[index]:
            if not rows:
                start = index + 1
                all_same = True
            rows.append(perl_view(source.raw[index]))
            all_same = all_same and source.same_as_like[index]
            continue
        if rows:
            if not (checked_like and all_same):  # gold files number their tokens; systems need only align
                check_sentence_fields(rows, source.path, start, allow_unannotated=False, require_ids=role == "gold")
            rows = []
        elif index < total:
            what = "starts with an empty line" if index == 0 else "two consecutive empty lines (empty sentence)"
            raise InputFormatError(source.path, index + 1, f"{what} in the {role} file")


def validate(gold: SplitFile, system: SplitFile, strict: bool) -> None:
    """:func:`validate_system` on files already split."""
    if strict:  # a malformed gold file is reported as such, before it is compared with the system file
        _check_structure(gold, role="gold")
    _check_alignment(gold, system)
    _check_system_format(system)
    if strict:
        _check_structure(system, role="system", checked_like=True, line_limit=len(gold.lines))


def validate_system(gold: CdscoLines, system: CdscoLines, *, strict: bool = True) -> None:
    """Run every check the official scorer makes before scoring (and, with ``strict``, the recommended ones).

    Raises :class:`InputFormatError` naming the file, line and problem. The cue-presence check of the
    official script (which it makes while scoring) is part of the strict checks; without ``strict`` it
    happens in :func:`score_starsem`.
    """
    gold_fields = SplitFile(gold)
    validate(gold_fields, SplitFile(system, like=gold_fields), strict)
