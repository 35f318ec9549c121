"""Split running text into tokens the way the *SEM 2012 CD-SCO corpus is tokenised.

The rules follow what the CD-SCO files show (Penn-Treebank-like):

* whitespace separates tokens; every token keeps its character offsets in the input, and its text is
  exactly the input slice (quotes are not rewritten to ``` `` ```/``''``);
* punctuation is split off the start (``( [ { " ' ` ``) and the end (``) ] } " ' , ; : ! ? .``) of a
  word, ``...``, ``--``, ``````, ``''`` stay one token each, and ``--`` inside a word splits it;
* a final period stays on abbreviations: titles and common short forms (``Mr.``, ``Dr.``, ``e.g.``,
  ``Fig.``, ``et al.``), dotted acronyms (``M.R.C.S.``, ``p.m.``) and single-letter initials (``L.``),
  except an initial that ends the text (``kinase C.``), which is a sentence end;
* contractions split as in CD-SCO: ``don't`` -> ``do`` + ``n't``, ``can't`` -> ``ca`` + ``n't``,
  ``won't`` -> ``wo`` + ``n't``, ``cannot`` -> ``can`` + ``not``, and the clitics ``'s 'll 've 're 'm 'd``
  (straight or curly apostrophe) become tokens of their own;
* hyphenated words (``moor-gate``, ``HIV-1``), ``o'clock``, numbers (``1.5``, ``10,000``) and slashes
  (``differentiation/activation``) stay whole.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from negkit.resolution.instances import Token

#: Words whose final period belongs to them (compared in lower case).
ABBREVIATIONS: frozenset[str] = frozenset(
    """mr. mrs. ms. dr. st. no. nos. vs. v. etc. al. fig. figs. eq. eqs. ref. refs. cf. ca. approx. resp.
    prof. rev. jr. sr. co. inc. ltd. dept. vol. pp. p. ch. sec. jan. feb. mar. apr. jun. jul. aug. sep.
    sept. oct. nov. dec. mt. gen. col. capt. lt. sgt. esq. viz. e.g. i.e. a.m. p.m.""".split()
)

_OPENING = ("``", "(", "[", "{", '"', "`", "\u201c", "\u2018", "'")
_CLOSING = ("...", "''", "--", ")", "]", "}", '"', "'", ",", ";", ":", "!", "?", "\u201d", "\u2019", ".")
_CLITICS = ("'s", "'ll", "'ve", "'re", "'m", "'d")
_APOSTROPHES = "'\u2019"
_DOTTED_ACRONYM = re.compile(r"(?:[A-Za-z]\.){2,}")
_INITIAL = re.compile(r"[A-Za-z]\.")
_CHUNK = re.compile(r"\S+")
_PLAIN_WORD = re.compile(r"[^\W_]+(?:-[^\W_]+)*")
_PUNCTUATION_RUN = re.compile(r"\.{2,}|-+|`+|'+|([^\w\s])")


def tokenize(text: str) -> list[Token]:
    """Tokens of ``text`` with ``char_start``/``char_end`` offsets into it (see the module rules)."""
    tokens: list[Token] = []
    chunks = list(_CHUNK.finditer(text))
    words = [chunk.group() for chunk in chunks]
    for number, chunk in enumerate(chunks):
        previous = words[number - 1] if number else None
        following = words[number + 1] if number + 1 < len(words) else None
        context = _Context(previous, following)
        for start, end in _split_chunk(chunk.group(), context):
            offset = chunk.start()
            tokens.append(Token(text[offset + start : offset + end], char_start=offset + start, char_end=offset + end))
    return tokens


@dataclass(frozen=True)
class _Context:
    """The chunks before and after the one being split (``None`` at the ends of the text)."""

    previous: str | None
    following: str | None


_INSIDE = _Context("", "")


def _split_chunk(chunk: str, context: _Context) -> list[tuple[int, int]]:
    """Token boundaries (relative to the chunk) of one whitespace-free chunk."""
    if "--" in chunk.strip("-"):
        pieces: list[tuple[int, int]] = []
        position = 0
        for match in re.finditer(r"-{2,}", chunk):
            if match.start() > position:
                pieces += _shift(_split_chunk(chunk[position : match.start()], _INSIDE), position)
            pieces.append((match.start(), match.end()))
            position = match.end()
        if position < len(chunk):
            pieces += _shift(_split_chunk(chunk[position:], _Context("", context.following)), position)
        return pieces
    if _PLAIN_WORD.fullmatch(chunk) and chunk.lower() != "cannot" or _PUNCTUATION_RUN.fullmatch(chunk):
        return [(0, len(chunk))]
    begin, end = 0, len(chunk)
    leading: list[tuple[int, int]] = []
    trailing: list[tuple[int, int]] = []
    while begin < end:
        mark = _opening_mark(chunk[begin:end])
        if not mark:
            break
        leading.append((begin, begin + len(mark)))
        begin += len(mark)
    while begin < end:
        sentence_closed = any(chunk[a:b] in (".", "!", "?", "...") for a, b in trailing)
        mark = _closing_mark(chunk[begin:end], _INSIDE if sentence_closed else context)
        if not mark:
            break
        trailing.append((end - len(mark), end))
        end -= len(mark)
    return leading + _split_core(chunk, begin, end) + trailing[::-1]


def _opening_mark(rest: str) -> str:
    """The opening punctuation at the start of ``rest`` to split off, or ``""``."""
    for mark in _OPENING:
        if rest.startswith(mark) and len(rest) > len(mark):
            word = rest[len(mark) :]
            if mark == "'" and (word.lower() in _CLITICS or word[0].isdigit() or not word[0].isalnum()):
                return ""
            return mark
    return ""


def _closing_mark(rest: str, context: _Context) -> str:
    """The closing punctuation at the end of ``rest`` to split off, or ``""``."""
    for mark in _CLOSING:
        if not rest.endswith(mark) or len(rest) == len(mark):
            continue
        if mark == "." and _keeps_period(rest, context):
            return ""
        if mark in ("'", "\u2019") and rest[:-1].lower().endswith(("n", "o")) and rest.lower().endswith(("n'", "o'")):
            # "goin'" style elisions keep their apostrophe only when there is no other reading; a
            # closing quote after "n"/"o" is far more common in prose, so it is split off.
            return mark
        return mark
    return ""


def _keeps_period(word: str, context: _Context) -> bool:
    """True when the final period of ``word`` is part of it (an abbreviation, a heading number)."""
    if word[:-1].isdigit():
        return context.previous is None or context.previous.lower() == "chapter"
    if context.following is None:
        return False
    lowered = word.lower()
    if lowered == "no.":
        return context.following[:1].isdigit()
    return lowered in ABBREVIATIONS or bool(_DOTTED_ACRONYM.fullmatch(word) or _INITIAL.fullmatch(word))


def _split_core(chunk: str, begin: int, end: int) -> list[tuple[int, int]]:
    """Split contractions off the word ``chunk[begin:end]``."""
    if begin >= end:
        return []
    word = chunk[begin:end].lower().replace("\u2019", "'")
    if word == "cannot":
        return [(begin, begin + 3), (begin + 3, end)]
    if word.endswith("n't") and len(word) > 3:
        return [(begin, end - 3), (end - 3, end)]
    for clitic in _CLITICS:
        if word.endswith(clitic) and len(word) > len(clitic):
            return [(begin, end - len(clitic)), (end - len(clitic), end)]
    return [(begin, end)]


def _shift(spans: list[tuple[int, int]], offset: int) -> list[tuple[int, int]]:
    return [(start + offset, end + offset) for start, end in spans]
