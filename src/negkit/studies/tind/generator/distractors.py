"""Distractors of TIND groups (paper Appendix C) and the rules a distractor must obey.

A distractor replaces one synset of a group's triple with unrelated material, which turns true knowledge
into false knowledge. Two forms, as in the raw headers:

- a *word* (patterns #03-#11 and #02's ``Distractor-1``): a Core WordNet lemma of the replaced synset's POS,
  listed with all its synsets of that POS;
- a *synset* (#01 and #02's ``Distractor-2``, whose gloss is used): a Core WordNet synset.

Rules (:meth:`DistractorRules.violations` checks them, the generator only draws candidates that pass):

1. BLC exclusion: no synset of the distractor is a Basic Level Concept;
2. disjoint annotations: the *annotation* of a synset is the set of ``lexicographer file + WordNet Domain``
   pairs of its domain labels; the annotation of the replaced synset and those of every synset of the
   distractor must share no pair. (Reading "every sense of the replaced synset" as every sense of the
   replaced *word* breaks the rule for 140 of the 2,117 distractors of the public half; this reading for 5.)
   On the public half, 74 distractors have a synset that is a BLC of ``all/20``, so the authors' BLC set
   cannot have been exactly this one; the checker reports such counts without failing the official data
   for them (see ``negkit tind check``);
3. the distractor differs from the words of the triple.

Draws are proportional to the natural logarithm of ``1 + frequency`` (frequency: the sum of the SemCor tag
counts of ``index.sense`` over the candidate's senses; candidates of frequency 0 are never drawn). Every
draw uses its own :class:`random.Random` seeded by the seed, the pattern, the group number and the role, so
a seed fixes every choice, and the triples never depend on the seed.
"""

from __future__ import annotations

import bisect
import itertools
import math
import random
from dataclasses import dataclass
from functools import cached_property

from negkit.benchmarks.tind.types import DistractorRef, SourceTriple, SynsetId
from negkit.errors import NegkitError
from negkit.studies.tind.generator.resources import SideResources
from negkit.studies.tind.generator.select import CoreSenses
from negkit.studies.tind.generator.wordnet import WordNet

Annotation = frozenset[tuple[str, str]]


@dataclass(frozen=True)
class Candidate:
    """A possible distractor with everything the rules and the draw need."""

    reference: DistractorRef  # label left empty; set when drawn
    annotation: Annotation
    weight: float
    words: frozenset[str]


class DistractorRules:
    """The annotation, BLC and frequency facts behind distractor choice, shared by generator and checker."""

    def __init__(self, wordnet: WordNet, resources: SideResources) -> None:
        self.wordnet = wordnet
        self.resources = resources
        self.blc = resources.basic_level_concepts

    def synset_annotation(self, synset_id: str) -> Annotation:
        lexfile = self.wordnet.synset(synset_id).lexicographer_file
        return frozenset((lexfile, domain) for domain in self.resources.domains_of(synset_id))

    def word_synsets(self, word: str, pos: str) -> list[str]:
        """All synsets of ``word`` with this POS, sorted by offset (as the headers list them)."""
        return sorted(self.wordnet.senses(word, pos))

    def word_annotation(self, word: str, pos: str) -> Annotation:
        return frozenset().union(*(self.synset_annotation(s) for s in self.word_synsets(word, pos)))

    def word_frequency(self, word: str, pos: str) -> int:
        return sum(self.wordnet.tag_count(word, synset_id) for synset_id in self.word_synsets(word, pos))

    def replaced_annotation(self, source: SourceTriple, number: int) -> Annotation:
        """Annotation of synset ``number`` (1-based) of the triple, the one the distractor replaces."""
        return self.synset_annotation(str(source.synsets[number - 1].synset))

    def distractor_annotation(self, distractor: DistractorRef) -> Annotation:
        return frozenset().union(*(self.synset_annotation(str(s)) for s in distractor.synsets))

    def violations(self, source: SourceTriple, distractor: DistractorRef, number: int) -> list[str]:
        """The rules ``distractor`` breaks as a replacement of synset ``number`` of ``source`` (empty if none)."""
        problems = []
        if any(str(synset) in self.blc for synset in distractor.synsets):
            problems.append("a synset of the distractor is a Basic Level Concept")
        shared = self.replaced_annotation(source, number) & self.distractor_annotation(distractor)
        if shared:
            pairs = ", ".join(f"{lexfile}+{domain}" for lexfile, domain in sorted(shared))
            problems.append(f"shares lexicographer file + domain with the replaced synset: {pairs}")
        words = {synset.lemma.lower() for synset in source.synsets}
        if distractor.word is not None and distractor.word.lower() in words:
            problems.append("the distractor word is a word of the triple")
        return problems


class DistractorSampler:
    """Draws distractors that obey :class:`DistractorRules` with log-frequency weights."""

    def __init__(self, rules: DistractorRules, core: CoreSenses) -> None:
        self.rules = rules
        self.core = core

    @cached_property
    def _word_candidates(self) -> dict[str, list[Candidate]]:
        by_pos: dict[str, list[Candidate]] = {"n": [], "v": []}
        seen: set[tuple[str, str]] = set()
        for lemma, synset_id in self.core.senses:
            pos = synset_id[-1]
            if (lemma, pos) in seen:
                continue
            seen.add((lemma, pos))
            synsets = self.rules.word_synsets(lemma, pos)
            if not synsets or any(s in self.rules.blc for s in synsets):
                continue
            weight = math.log1p(self.rules.word_frequency(lemma, pos))
            if weight > 0:
                word = lemma.replace("_", " ")
                reference = DistractorRef("", tuple(SynsetId(int(s[:8]), s[-1]) for s in synsets), word)
                by_pos[pos].append(
                    Candidate(reference, self.rules.word_annotation(lemma, pos), weight, frozenset({lemma}))
                )
        return by_pos

    @cached_property
    def _synset_candidates(self) -> list[Candidate]:
        candidates = []
        for synset_id in sorted(self.core.lemma_of):
            if not synset_id.endswith("-n") or synset_id in self.rules.blc:
                continue
            synset = self.rules.wordnet.synset(synset_id)
            frequency = sum(self.rules.wordnet.tag_count(lemma, synset_id) for lemma in synset.lemmas)
            weight = math.log1p(frequency)
            if weight > 0:
                senses = tuple(
                    (lemma.replace("_", " "), self.rules.wordnet.sense_number(lemma, synset_id))
                    for lemma in synset.lemmas
                )
                reference = DistractorRef("", (SynsetId(int(synset_id[:8]), "n"),), None, senses)
                candidates.append(
                    Candidate(
                        reference,
                        self.rules.synset_annotation(synset_id),
                        weight,
                        frozenset(lemma.lower() for lemma in synset.lemmas),
                    )
                )
        return candidates

    def _allowed(self, synset_form: bool, pos: str, forbidden: Annotation) -> tuple[list[Candidate], list[float]]:
        """Candidates whose annotation is disjoint from ``forbidden``, with cumulative weights (cached)."""
        key = (synset_form, pos, forbidden)
        cache = self.__dict__.setdefault("_allowed_cache", {})
        if key not in cache:
            pool = self._synset_candidates if synset_form else self._word_candidates[pos]
            allowed = [candidate for candidate in pool if not (candidate.annotation & forbidden)]
            cache[key] = (allowed, list(itertools.accumulate(candidate.weight for candidate in allowed)))
        return cache[key]

    def draw(
        self, source: SourceTriple, label: str, number: int, synset_form: bool, rng: random.Random
    ) -> DistractorRef:
        """One distractor replacing synset ``number`` of ``source``, in word or synset form.

        Draws are repeated while the drawn candidate shares a word with the triple (rejection sampling, so
        the result follows the weights restricted to the valid candidates).
        """
        replaced = source.synsets[number - 1]
        allowed, cumulative = self._allowed(synset_form, replaced.pos, self.rules.replaced_annotation(source, number))
        words = {synset.lemma.lower().replace(" ", "_") for synset in source.synsets}
        if not any(not (candidate.words & words) for candidate in allowed):
            raise NegkitError(f"no distractor obeys the rules for {source.header_text()}")
        while True:
            chosen = allowed[bisect.bisect_right(cumulative, rng.random() * cumulative[-1])]
            if not (chosen.words & words):
                reference = chosen.reference
                return DistractorRef(label, reference.synsets, reference.word, reference.lemmas)
