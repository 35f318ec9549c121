"""The typed items of This is not a Dataset (TIND), shared by every TIND reader, writer and metric.

A TIND *group* (the authors' "test") is one WordNet triple, its distractor triple(s) and every sentence
made from them with the templates of one pattern. Each sentence is a :class:`TruthItem` with its gold
truth value; a :class:`TindGroup` holds the items of one group together with its parsed header.

Naming follows the raw release and the HF release (``HiTZ/This-is-not-a-dataset``): annotation values are
kept exactly as written there (``affirmation``/``verbal``/``non_verbal``, ``none``/``analytic``/
``synthetic``, ``none``/``clausal``/``subclausal``).

This module has no I/O; see :mod:`negkit.benchmarks.tind.data` for the readers and writers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

#: Pattern number -> pattern name as in the HF release's ``pattern`` field.
PATTERN_NAMES: dict[int, str] = {
    1: "Synonymy1",
    2: "Antonymy1",
    3: "Synonymy2",
    4: "Antonymy2",
    5: "Hypernymy",
    6: "Part",
    7: "Substance",
    8: "Member",
    9: "Agent",
    10: "Instrument",
    11: "Result",
}
PATTERN_IDS: dict[str, int] = {name: number for number, name in PATTERN_NAMES.items()}

#: Patterns whose input triple is false knowledge (antonymy read as synonymy): their truth table is flipped
#: for input sentences (paper Table 10).
ANTONYMY_PATTERNS: frozenset[int] = frozenset({2, 4})

#: Patterns with two distractor triples (``Distractor-1`` replaces the first synset, ``Distractor-2`` the second).
TWO_DISTRACTOR_PATTERNS: frozenset[int] = frozenset({2, 3, 4})

#: Item kinds, as written in the raw files (without the padding of ``Input``).
KINDS: tuple[str, ...] = ("Input", "Distractor", "Distractor-1", "Distractor-2")

#: The value of ``negation_type`` for sentences without negation.
AFFIRMATION = "affirmation"


def expected_label(pattern_id: int, is_distractor: bool, is_negated: bool) -> bool:
    """The truth value the paper's Table 10 gives a sentence of this cell.

    Input affirmative sentences are True and input negative ones False, except for the antonymy patterns
    #02 and #04, where it is the other way round; distractor sentences are False when affirmative and True
    when negative in every pattern. A few #03 sentences deviate from this table in the data (the raw files
    are the authority for gold labels; this function gives the table's value).
    """
    if is_distractor:
        return is_negated
    if pattern_id in ANTONYMY_PATTERNS:
        return is_negated
    return not is_negated


@dataclass(frozen=True, slots=True)
class TruthItem:
    """One TIND sentence with its gold truth value.

    ``item_id`` is stable across readers: ``p{pattern:02d}-g{group:06d}-s{index:04d}`` where ``index`` is the
    0-based position of the sentence in its group. ``group_id`` is the group's test number: the number in
    the raw header (``% Test 000003`` -> 3, unique within a pattern) or the HF ``test_id`` (unique overall);
    a group is therefore identified by ``(pattern_id, group_id)``. ``template_id`` is ``template-variation``
    (``"3-1"``); it is empty for items read from the HF release, which does not record it. ``kind`` is
    ``Input``, ``Distractor``, ``Distractor-1`` or ``Distractor-2`` (HF items only know ``Input`` vs
    ``Distractor``).
    """

    item_id: str
    group_id: int
    pattern_id: int
    pattern: str
    template_id: str
    negation_type: str
    semantic_type: str
    syntactic_scope: str
    kind: str
    is_distractor: bool
    label: bool
    sentence: str

    @property
    def is_negated(self) -> bool:
        """True for sentences that carry a negation (``negation_type`` is not ``affirmation``)."""
        return self.negation_type != AFFIRMATION

    @property
    def group_key(self) -> tuple[int, int]:
        """``(pattern_id, group_id)``: identifies the item's group in any TIND data set."""
        return (self.pattern_id, self.group_id)


def make_item_id(pattern_id: int, group_id: int, index_in_group: int) -> str:
    """The stable id of the ``index_in_group``-th (0-based) sentence of a group."""
    return f"p{pattern_id:02d}-g{group_id:06d}-s{index_in_group:04d}"


class SynsetId(NamedTuple):
    """A WordNet 3.0 synset as the raw headers write it: ``00000001-n`` (8-digit offset, part of speech)."""

    offset: int
    pos: str

    def __str__(self) -> str:
        return f"{self.offset:08d}-{self.pos}"


class SourceSynset(NamedTuple):
    """A synset of a source triple with the sense that instantiates it: ``00000001-n glass jar_1``.

    ``lemma_sense`` is the lemma (spaces kept, e.g. ``glass jar``) joined to the WordNet sense number by ``_``.
    """

    offset: int
    pos: str
    lemma_sense: str

    @property
    def synset(self) -> SynsetId:
        return SynsetId(self.offset, self.pos)

    @property
    def lemma(self) -> str:
        return self.lemma_sense.rsplit("_", 1)[0]

    @property
    def sense(self) -> int:
        return int(self.lemma_sense.rsplit("_", 1)[1])

    def __str__(self) -> str:
        return f"{self.offset:08d}-{self.pos} {self.lemma_sense}"


@dataclass(frozen=True)
class SourceTriple:
    """The WordNet triple of a group: ``relation(synset, synset)`` (one synset for ``variant``, pattern #01).

    ``relation`` is the header's name: ``variant``, ``ant``, ``synset``, ``hyp``, ``wn_part``,
    ``wn_substance``, ``wn_member``, ``agent``, ``instrument``, ``result``.
    """

    relation: str
    synsets: tuple[SourceSynset, ...]

    def header_text(self) -> str:
        """The header field without its ``Source: `` label."""
        return f"{self.relation}({','.join(str(synset) for synset in self.synsets)})"


@dataclass(frozen=True)
class DistractorRef:
    """One distractor of a group, in one of the two forms of the raw headers.

    * word form (a word replaces a word): ``kite [00000002-n,00000003-n]`` -> ``word="kite"`` and
      ``synsets`` = every synset of the word; ``lemmas`` is empty.
    * synset form (patterns #01 and #02's ``Distractor-2``, whose gloss is used):
      ``00000004-n [(cap,1),(lid,3)]`` -> ``word=None``, ``synsets`` = that one synset, ``lemmas`` = its
      ``(lemma, sense number)`` pairs.

    ``label`` is the header label: ``Distractor``, ``Distractor-1`` or ``Distractor-2``.
    """

    label: str
    synsets: tuple[SynsetId, ...]
    word: str | None = None
    lemmas: tuple[tuple[str, int], ...] = ()

    @property
    def is_synset_form(self) -> bool:
        return self.word is None

    def header_text(self) -> str:
        """The header field without its ``label: ``."""
        if self.word is None:
            pairs = ",".join(f"({lemma},{sense})" for lemma, sense in self.lemmas)
            return f"{self.synsets[0]} [{pairs}]"
        return f"{self.word} [{','.join(str(synset) for synset in self.synsets)}]"


@dataclass
class TindGroup:
    """One group ("test"): its header and its sentences in file order.

    ``header`` is the raw header line (without its newline) when the group was read from a raw file; the
    raw writer writes it unchanged, and :meth:`header_line` rebuilds it from the parsed fields (they agree
    on every group of the release).
    """

    group_id: int
    pattern_id: int
    pattern: str
    source: SourceTriple
    distractors: tuple[DistractorRef, ...]
    items: list[TruthItem] = field(default_factory=list)
    header: str | None = None

    def header_line(self) -> str:
        """The raw header line built from the parsed fields: ``% Test NNNNNN<TAB>Source: ...<TAB>Distractor: ...``."""
        fields = [f"% Test {self.group_id:06d}", f"Source: {self.source.header_text()}"]
        fields += [f"{d.label}: {d.header_text()}" for d in self.distractors]
        return "\t".join(fields)

    @property
    def key(self) -> tuple[int, int]:
        """``(pattern_id, group_id)``."""
        return (self.pattern_id, self.group_id)
