"""The common representation of negation-annotated sentences (CD-SCO, BioScope, SFU, system output).

A :class:`ResolutionSentence` is a list of :class:`Token` plus the :class:`NegationInstance` found in it.
An instance has a cue, a scope and an event, each a tuple of :class:`TokenPart`: the token position
and the annotated string, which is the whole word or, for affixes, part of it:

* the cue of "impossible" is ``TokenPart(index=i, text="im")`` (``start=0``) and its scope part is
  ``TokenPart(index=i, text="possible", start=2)``;
* "careless" has the cue ``TokenPart(index=i, text="less", start=4)``;
* multiword and discontinuous cues ("neither ... nor") are several parts of one instance, in
  token order; scopes may be discontinuous too.

``start`` is the character offset of the part inside the token's word when it is known (``None`` when
the annotated string does not occur in the word, which a few corpus cells do). Readers fill it,
writers and scorers use ``index`` and ``text`` only, so a CD-SCO file is reproduced byte for byte.

This module has no I/O: readers and writers live in one module per format (``cdsco``, ``bioscope``,
``sfu``), and :func:`negkit.resolution.corpora.formats.read_corpus` picks the right one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Token:
    """One token of a sentence.

    ``lemma``, ``pos`` and ``syntax`` (the CD-SCO parse-tree fragment) are kept when the corpus has them.
    ``char_start``/``char_end`` locate the token in :attr:`ResolutionSentence.text` for corpora that come
    as running text (BioScope, SFU, raw text); they are ``None`` for pre-tokenised corpora.
    """

    text: str
    lemma: str | None = None
    pos: str | None = None
    syntax: str | None = None
    char_start: int | None = None
    char_end: int | None = None


@dataclass(frozen=True)
class TokenPart:
    """A whole token, or the part of it that an annotation covers (affix cues, their scope remainder)."""

    index: int
    text: str
    start: int | None = 0

    def is_partial(self, token: Token) -> bool:
        """True when the part covers less than the whole word of ``token``."""
        return self.text != token.text


@dataclass(frozen=True)
class NegationInstance:
    """One negation: its cue (never empty in gold data), scope and negated event, in token order."""

    cue: tuple[TokenPart, ...]
    scope: tuple[TokenPart, ...] = ()
    event: tuple[TokenPart, ...] = ()

    @property
    def cue_indices(self) -> tuple[int, ...]:
        return tuple(part.index for part in self.cue)

    @property
    def scope_indices(self) -> tuple[int, ...]:
        return tuple(part.index for part in self.scope)

    @property
    def event_indices(self) -> tuple[int, ...]:
        return tuple(part.index for part in self.event)

    def is_affixal(self, tokens: list[Token]) -> bool:
        """True when some cue part covers only part of its token ("im" in "impossible")."""
        return any(part.is_partial(tokens[part.index]) for part in self.cue)

    def is_multiword(self) -> bool:
        """True when the cue spans more than one token."""
        return len({part.index for part in self.cue}) > 1

    def is_discontinuous(self) -> bool:
        """True when the cue tokens are not adjacent ("neither ... nor")."""
        indices = sorted({part.index for part in self.cue})
        return any(b - a > 1 for a, b in zip(indices, indices[1:]))


@dataclass
class ResolutionSentence:
    """A sentence with its negation instances.

    ``sentence_id`` identifies the sentence in its corpus (CD-SCO: ``"chapter/number"``; BioScope and
    SFU: the document and sentence ids). ``chapter`` and ``number`` are the CD-SCO fields 1 and 2.
    ``text`` is the original running text when the corpus has one. ``speculation`` holds speculation
    instances for corpora that annotate them (BioScope, SFU); they never count as negation.
    ``source`` and ``line`` say where the sentence was read from (1-based line of its first token, when
    the format is line based), so later errors can point at it.
    """

    tokens: list[Token]
    instances: list[NegationInstance] = field(default_factory=list)
    sentence_id: str = ""
    chapter: str | None = None
    number: str | None = None
    text: str | None = None
    speculation: list[NegationInstance] = field(default_factory=list)
    source: str | None = None
    line: int | None = None

    @property
    def words(self) -> list[str]:
        return [token.text for token in self.tokens]

    @property
    def has_negation(self) -> bool:
        return bool(self.instances)


@dataclass
class Corpus:
    """Sentences read from one file or folder, plus what could not be mapped onto tokens."""

    path: str
    format: str
    sentences: list[ResolutionSentence]
    unmapped: int = 0
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class CorpusStatistics:
    """Counts printed by ``negkit resolution stats``.

    ``cues`` counts negation instances (each has one cue, possibly multiword); ``scopes`` counts
    instances with a non-empty scope; ``events`` instances with a non-empty event.
    """

    sentences: int
    negated_sentences: int
    instances: int
    cues: int
    scopes: int
    events: int
    unmapped: int = 0


def corpus_statistics(sentences: Iterable[ResolutionSentence], unmapped: int = 0) -> CorpusStatistics:
    """Count sentences, negated sentences, instances, cues, scopes and events."""
    n_sentences = n_negated = n_instances = n_scopes = n_events = 0
    for sentence in sentences:
        n_sentences += 1
        if sentence.instances:
            n_negated += 1
        for instance in sentence.instances:
            n_instances += 1
            n_scopes += bool(instance.scope)
            n_events += bool(instance.event)
    return CorpusStatistics(
        sentences=n_sentences,
        negated_sentences=n_negated,
        instances=n_instances,
        cues=n_instances,
        scopes=n_scopes,
        events=n_events,
        unmapped=unmapped,
    )


_WORD_CHARACTER = re.compile(r"\w")


def scope_length(instance: NegationInstance) -> int:
    """Number of scope parts holding a (Unicode) word character: the NIS scope length (metrics spec 8.2),
    which leaves punctuation out by its text, so it means the same on corpora with and without POS tags."""
    return sum(1 for part in instance.scope if _WORD_CHARACTER.search(part.text))


def scope_length_counts(sentences: Iterable[ResolutionSentence]) -> dict[int, int]:
    """Negation instances by scope length (:func:`scope_length`; 0 for an empty scope), sorted by length."""
    counts: dict[int, int] = {}
    for sentence in sentences:
        for instance in sentence.instances:
            length = scope_length(instance)
            counts[length] = counts.get(length, 0) + 1
    return dict(sorted(counts.items()))
