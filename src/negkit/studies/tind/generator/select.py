"""Selection of the WordNet triples of each TIND pattern (paper section 3 and Appendix C).

Rules, as negkit implements them:

- only Core WordNet senses: every synset of a triple must hold a Core WordNet sense of its POS, and the word
  that names it is its core lemma with the lowest sense number (ties: alphabetical); relations are
  taken between synsets (a lexical antonym or morphosemantic link between any of their words counts);
- #01 ``variant``: every core noun sense (reflexive synonymy), BLC synsets excluded;
- #02/#04 ``ant``: antonym pointers (``!``) between two core noun synsets; each pair in the order of the
  synsets' offsets, followed by its reverse (the public half holds exactly the forward pairs);
- #03 ``synset``: two core senses of the same noun synset, likewise followed by the reverse pair;
- #05 ``hyp``: hypernym and instance-hypernym pointers (``@``, ``@i``) between core noun synsets, neither of
  them a Basic Level Concept;
- #06/#07/#08 ``wn_part``/``wn_substance``/``wn_member``: part/substance/member meronym pointers (``%p``, ``%s``,
  ``%m``) from the whole to the part;
- #09/#10/#11 ``agent``/``instrument``/``result``: morphosemantic links of that relation between a core verb
  sense and a core noun sense.

For member meronymy (#08) and agent (#09) the paper keeps only triples whose noun is an animal or a person by
the EuroWordNet Top Concept Ontology. That mapping is not available here; its stand-in is WordNet's own
lexicographer files: the noun must be in ``noun.person`` or ``noun.animal`` (:data:`ANIMATE_LEXICOGRAPHER_FILES`).
Triples are returned sorted by the synsets' offsets, so group numbers follow the order of the raw release.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from negkit.benchmarks.tind.types import SourceSynset, SourceTriple
from negkit.studies.tind.generator.resources import SideResources, lemma_of_sense_key, pos_of_sense_key
from negkit.studies.tind.generator.wordnet import LEXICOGRAPHER_FILES, Synset, WordNet

#: Stand-in for the Top Concept Ontology's Animal/Human features (patterns #08 and #09).
ANIMATE_LEXICOGRAPHER_FILES: frozenset[str] = frozenset({"noun.person", "noun.animal"})

#: Header relation name of each pattern.
RELATIONS: dict[int, str] = {
    1: "variant",
    2: "ant",
    3: "synset",
    4: "ant",
    5: "hyp",
    6: "wn_part",
    7: "wn_substance",
    8: "wn_member",
    9: "agent",
    10: "instrument",
    11: "result",
}
#: Symmetric relations: each pair is followed by its reverse (58 = 2 x 29 antonym pairs, 14 = 2 x 7 synonym pairs).
SYMMETRIC_PATTERNS: frozenset[int] = frozenset({2, 3, 4})
_MERONYM_POINTERS = {6: "%p", 7: "%s", 8: "%m"}


@dataclass
class CoreSenses:
    """Core WordNet senses resolved to synsets: ``(lemma, synset id)`` pairs and the naming lemma per synset."""

    senses: list[tuple[str, str]]
    lemma_of: dict[str, str]  # synset id -> the core lemma naming it (lowest sense number)

    @classmethod
    def resolve(cls, wordnet: WordNet, resources: SideResources) -> CoreSenses:
        """Map every core sense key to its synset.

        A handful of Core WordNet keys do not occur in WordNet 3.0's ``index.sense`` (their lexical ids
        changed); such a key falls back to the lemma's first sense in the same lexicographer file.
        """
        senses: list[tuple[str, str]] = []
        for pos in ("n", "v"):
            for key in resources.core_sense_keys.get(pos, []):
                synset_id = wordnet.synset_of_sense_key(key) or _same_lexfile_sense(wordnet, key)
                if synset_id is not None and pos_of_sense_key(key) == pos:
                    senses.append((lemma_of_sense_key(key).lower(), synset_id))
        core = set(senses)
        lemma_of: dict[str, str] = {}
        for lemma, synset_id in senses:
            if synset_id not in lemma_of:
                in_synset_order = [name.lower() for name in wordnet.synset(synset_id).lemmas] + [lemma]
                named = [name for name in in_synset_order if (name, synset_id) in core]
                lemma_of[synset_id] = min(named, key=lambda name: (wordnet.sense_number(name, synset_id), name))
        return cls(senses, lemma_of)


def _same_lexfile_sense(wordnet: WordNet, sense_key: str) -> str | None:
    lemma = lemma_of_sense_key(sense_key)
    pos = pos_of_sense_key(sense_key)
    lexfile_number = int(sense_key.split("%", 1)[1].split(":")[1])
    for synset_id in wordnet.senses(lemma, pos):
        synset = wordnet.synset(synset_id)
        if synset.lexicographer_file == _lexfile_name(pos, lexfile_number):
            return synset_id
    return None


def _lexfile_name(pos: str, number: int) -> str:
    return LEXICOGRAPHER_FILES[number] if 0 <= number < len(LEXICOGRAPHER_FILES) else ""


class TripleSelector:
    """Selects the triples of every pattern from WordNet, Core WordNet, BLC and the morphosemantic links."""

    def __init__(self, wordnet: WordNet, resources: SideResources) -> None:
        self.wordnet = wordnet
        self.resources = resources
        self.core = CoreSenses.resolve(wordnet, resources)
        self.blc = resources.basic_level_concepts

    def triples(self, pattern_id: int) -> list[SourceTriple]:
        """The sorted, de-duplicated triples of one pattern."""
        builders: dict[int, Callable[[], list[tuple[tuple[str, str], ...]]]] = {
            1: self._variants,
            2: self._antonyms,
            3: self._synonym_pairs,
            4: self._antonyms,
            5: self._hypernyms,
            9: lambda: self._morphosemantic("agent", animate=True),
            10: lambda: self._morphosemantic("instrument", animate=False),
            11: lambda: self._morphosemantic("result", animate=False),
        }
        build = builders.get(pattern_id) or (lambda: self._meronyms(pattern_id))
        unique = sorted(set(build()))
        if pattern_id in SYMMETRIC_PATTERNS:
            unique = [ordered for pair in unique for ordered in (pair, pair[::-1])]
        return [self._triple(pattern_id, pairs) for pairs in unique]

    def _triple(self, pattern_id: int, pairs: tuple[tuple[str, str], ...]) -> SourceTriple:
        synsets = []
        for synset_id, lemma in pairs:
            sense = self.wordnet.sense_number(lemma, synset_id)
            spelled = [name for name in self.wordnet.synset(synset_id).lemmas if name.lower() == lemma]
            word = (spelled[0] if spelled else lemma).replace("_", " ")
            synsets.append(SourceSynset(int(synset_id[:8]), synset_id[-1], f"{word}_{sense}"))
        return SourceTriple(RELATIONS[pattern_id], tuple(synsets))

    def _core_noun(self, synset_id: str) -> tuple[str, str] | None:
        lemma = self.core.lemma_of.get(synset_id)
        return (synset_id, lemma) if lemma and synset_id.endswith("-n") else None

    # -- one builder per relation --------------------------------------------------------------------------
    def _variants(self) -> list[tuple[tuple[str, str], ...]]:
        return [
            ((synset_id, lemma),)
            for lemma, synset_id in self.core.senses
            if synset_id.endswith("-n") and synset_id not in self.blc
        ]

    def _synonym_pairs(self) -> list[tuple[tuple[str, str], ...]]:
        by_synset: dict[str, list[str]] = {}
        for lemma, synset_id in self.core.senses:
            if synset_id.endswith("-n") and lemma not in by_synset.setdefault(synset_id, []):
                by_synset[synset_id].append(lemma)
        return [
            ((synset_id, first), (synset_id, second))
            for synset_id, lemmas in by_synset.items()
            for first, second in zip(lemmas, lemmas[1:])
        ]

    def _antonyms(self) -> list[tuple[tuple[str, str], ...]]:
        pairs: list[tuple[tuple[str, str], ...]] = []
        for synset_id in self.core.lemma_of:
            for pointer in self.wordnet.synset(synset_id).pointers if synset_id.endswith("-n") else ():
                other = self._core_noun(pointer.target) if pointer.symbol == "!" else None
                noun = self._core_noun(synset_id)  # a core noun: its synset is a noun's (-n) with a core lemma
                if other and noun:
                    pairs.append(tuple(sorted([noun, other])))
        return pairs

    def _hypernyms(self) -> list[tuple[tuple[str, str], ...]]:
        pairs: list[tuple[tuple[str, str], ...]] = []
        for synset_id in self.core.lemma_of:
            if not synset_id.endswith("-n") or synset_id in self.blc:
                continue
            for pointer in self.wordnet.synset(synset_id).pointers:
                hypernym = self._core_noun(pointer.target) if pointer.symbol in ("@", "@i") else None
                noun = self._core_noun(synset_id)  # a core noun: its synset is a noun's (-n) with a core lemma
                if hypernym and noun and pointer.target not in self.blc:
                    pairs.append((noun, hypernym))
        return pairs

    def _meronyms(self, pattern_id: int) -> list[tuple[tuple[str, str], ...]]:
        symbol = _MERONYM_POINTERS[pattern_id]
        pairs: list[tuple[tuple[str, str], ...]] = []
        for synset_id in self.core.lemma_of:
            whole = self._core_noun(synset_id)
            if not whole:
                continue
            for pointer in self.wordnet.synset(synset_id).pointers:
                part = self._core_noun(pointer.target) if pointer.symbol == symbol else None
                if part and (pattern_id != 8 or self._is_animate(pointer.target)):
                    pairs.append((whole, part))
        return pairs

    def _morphosemantic(self, relation: str, animate: bool) -> list[tuple[tuple[str, str], ...]]:
        pairs: list[tuple[tuple[str, str], ...]] = []
        for link in self.resources.morphosemantic:
            verb_lemma = self.core.lemma_of.get(link.verb_id)
            noun = self._core_noun(link.noun_id)
            if link.relation == relation and verb_lemma and noun and (not animate or self._is_animate(link.noun_id)):
                pairs.append(((link.verb_id, verb_lemma), noun))
        return pairs

    def _is_animate(self, synset_id: str) -> bool:
        synset: Synset = self.wordnet.synset(synset_id)
        return synset.lexicographer_file in ANIMATE_LEXICOGRAPHER_FILES
