"""Turn annotated character spans (BioScope) or token lists (SFU) into negation instances.

Rules (documented with measured counts in ``docs/corpora.md``):

* a span maps onto every token it overlaps; a token it covers entirely becomes a whole
  :class:`TokenPart`, a token it covers in part becomes a partial ``TokenPart`` holding the covered
  characters and their offset in the word;
* a partial cue part is *clean* when it is a negation affix of its word (a prefix such as ``un`` of
  ``unable`` or ``non`` of ``non-specific``, or a suffix such as ``less``); any other partial part
  (a cue or scope starting or ending inside a word) is kept as it is but counted as unmapped;
* by default a scope follows the CD-SCO convention and leaves out its own cue: whole cue tokens are
  removed from it, and a token with an affix cue keeps only the rest of the word ("able" of "unable")
  when the scope covers that token. ``cue_in_scope=True`` keeps the corpus's own scope instead.

:class:`UnmappedLog` counts every span or reference that could not be mapped cleanly and keeps a few
examples of each kind for :attr:`negkit.resolution.corpora.formats.Corpus.notes`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from negkit.resolution.instances import NegationInstance, ResolutionSentence, Token, TokenPart

#: Negation prefixes and suffixes that may be annotated as a cue inside a word (lower case).
NEGATION_PREFIXES: frozenset[str] = frozenset({"un", "in", "im", "il", "ir", "dis", "non", "a", "an"})
NEGATION_SUFFIXES: frozenset[str] = frozenset({"less", "lessly", "lessness", "n't"})

#: How many examples of each kind of unmapped span :class:`UnmappedLog` keeps.
EXAMPLES_PER_KIND = 3


@dataclass
class UnmappedLog:
    """Counts the spans and references that could not be mapped cleanly, with a few examples of each kind."""

    counts: Counter[str] = field(default_factory=Counter)
    examples: dict[str, list[str]] = field(default_factory=dict)

    def add(self, kind: str, where: str, detail: str) -> None:
        """Record one problem of ``kind`` (e.g. "scope ends inside a token") at ``where`` ("FILE:LINE")."""
        self.counts[kind] += 1
        kept = self.examples.setdefault(kind, [])
        if len(kept) < EXAMPLES_PER_KIND:
            kept.append(f"{where}: {detail}")

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def notes(self) -> list[str]:
        """One line per kind (count and examples), most frequent first."""
        lines = []
        for kind, count in sorted(self.counts.items(), key=lambda item: (-item[1], item[0])):
            lines.append(f"{count} x {kind}; e.g. " + " | ".join(self.examples[kind]))
        return lines


def empty_sentence_notes(sentences: Iterable[ResolutionSentence]) -> list[str]:
    """A note naming the sentences without any token (kept, but no CD-SCO line can hold them)."""
    empty = [sentence.sentence_id for sentence in sentences if not sentence.tokens]
    if not empty:
        return []
    shown = ", ".join(empty[:EXAMPLES_PER_KIND]) + (", ..." if len(empty) > EXAMPLES_PER_KIND else "")
    return [f"{len(empty)} sentences without tokens (kept; they cannot be written as CD-SCO lines): {shown}"]


def tokens_in_span(tokens: list[Token], start: int, end: int) -> list[TokenPart]:
    """The parts of ``tokens`` (which carry char offsets) covered by the text span ``[start, end)``."""
    parts = []
    for index, token in enumerate(tokens):
        assert token.char_start is not None and token.char_end is not None
        if token.char_start >= end or token.char_end <= start:
            continue
        left, right = max(start, token.char_start), min(end, token.char_end)
        offset = left - token.char_start
        parts.append(TokenPart(index, token.text[offset : offset + right - left], offset))
    return parts


def is_affix(part: TokenPart, token: Token) -> bool:
    """True when ``part`` is a negation prefix or suffix of ``token``'s word."""
    affix = part.text.lower()
    if part.start == 0 and affix in NEGATION_PREFIXES:
        return True
    return part.start is not None and part.start + len(part.text) == len(token.text) and affix in NEGATION_SUFFIXES


def remainder(token: Token, affix: TokenPart) -> TokenPart:
    """The part of ``token`` left when the affix cue ``affix`` is taken out ("able" of "unable")."""
    start = affix.start or 0
    if start == 0:
        return TokenPart(affix.index, token.text[len(affix.text) :], len(affix.text))
    return TokenPart(affix.index, token.text[:start], 0)


def merge_parts(parts: Iterable[TokenPart]) -> tuple[TokenPart, ...]:
    """Parts in token order without duplicates."""
    return tuple(sorted(set(parts), key=lambda part: (part.index, part.start or 0)))


def build_instance(
    tokens: list[Token],
    cue: Iterable[TokenPart],
    scope: Iterable[TokenPart],
    *,
    cue_in_scope: bool = False,
) -> NegationInstance:
    """An instance from its cue and annotated scope parts; see the module rules for ``cue_in_scope``."""
    cue_parts = merge_parts(cue)
    scope_parts = merge_parts(scope)
    if not cue_in_scope:
        cue_by_index = {part.index: part for part in cue_parts}
        kept = []
        for part in scope_parts:
            cue_part = cue_by_index.get(part.index)
            if cue_part is None:
                kept.append(part)
            elif cue_part.is_partial(tokens[part.index]) and not part.is_partial(tokens[part.index]):
                kept.append(remainder(tokens[part.index], cue_part))
        scope_parts = tuple(kept)
    return NegationInstance(cue=cue_parts, scope=scope_parts)
