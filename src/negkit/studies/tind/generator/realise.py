"""Realisation: from a group's header (WordNet triple + distractors) to its sentences, exactly as the raw files.

A header names the *elements* of the group (``Source: REL(ID lemma_sense,ID lemma_sense)``) and its
distractors. A distractor is either a word (``whale [02062744-n,...]``: the word replaces an element's word
slots) or a synset (``08388074-n [(few,1)]``: its definition replaces an element's gloss slot).
``Distractor-1`` replaces the first element, ``Distractor-2`` the second; a single ``Distractor`` replaces
the first element with its part of speech (the noun in ``agent(verb, noun)``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cached_property

from negkit.benchmarks.tind.types import (
    PATTERN_NAMES,
    DistractorRef,
    SourceTriple,
    TindGroup,
    TruthItem,
    make_item_id,
)
from negkit.studies.tind.generator.morphology import SPELLINGS, ing_form, plural, with_article
from negkit.studies.tind.generator.templates import fill, load_pattern
from negkit.studies.tind.generator.wordnet import WordNet


class Realiser:
    """Fills pattern templates from WordNet; one instance caches WordNet lookups for many groups.

    ``spelling`` chooses the article and plural rules (:data:`negkit.studies.tind.generator.morphology.SPELLINGS`):
    ``"release"`` (default) reproduces the authors' release, ``"corrected"`` is pronunciation-aware English.
    """

    def __init__(self, wordnet: WordNet | None = None, spelling: str = "release") -> None:
        if spelling not in SPELLINGS:
            raise ValueError(f"unknown spelling {spelling!r}; choose one of {SPELLINGS}")
        self.wordnet = wordnet or WordNet()
        self.spelling = spelling

    @cached_property
    def _noun_exceptions(self) -> dict[str, list[str]]:
        return self.wordnet.exceptions("n")

    @cached_property
    def _verb_exceptions(self) -> dict[str, list[str]]:
        return self.wordnet.exceptions("v")

    def gloss(self, synset_id: str) -> str:
        """The definition used in templates: WordNet's gloss up to the first ``;``, minus a leading ``(domain)``."""
        definition = self.wordnet.synset(synset_id).definition
        return re.sub(r"^\([^()]*\)\s*", "", definition)

    def word_slots(self, word: str, number: int) -> dict[str, str]:
        """Word, article, plural (also with article) and -ing slots of element ``number`` (1 or 2)."""
        plural_form = plural(word, self._noun_exceptions, self.spelling)
        return {
            f"w{number}": word,
            f"a_w{number}": with_article(word, self.spelling),
            f"pl{number}": plural_form,
            f"a_pl{number}": with_article(plural_form, self.spelling),
            f"ing{number}": ing_form(word, self._verb_exceptions),
        }

    def slot_values(self, source: SourceTriple, distractor: DistractorRef | None = None) -> dict[str, str]:
        """Slot values of the input (``distractor=None``) or of one distractor role of a group."""
        values: dict[str, str] = {}
        for number, synset in enumerate(source.synsets, start=1):
            values.update(self.word_slots(synset.lemma.replace("_", " "), number))
            values[f"g{number}"] = self.gloss(str(synset.synset))
        if distractor is None:
            return values
        number = replaced_element(source, distractor)
        if distractor.is_synset_form:
            values[f"g{number}"] = self.gloss(str(distractor.synsets[0]))
        else:
            values.update(self.word_slots(distractor.word or "", number))
        return values

    def realise(
        self, pattern_id: int, group_id: int, source: SourceTriple, distractors: Sequence[DistractorRef]
    ) -> TindGroup:
        """The group with its sentences in raw-file order: template, variation, then role."""
        pattern = load_pattern(pattern_id)
        roles: list[tuple[str, DistractorRef | None]] = [("Input", None)]
        roles += [(distractor.label, distractor) for distractor in distractors]
        values = [self.slot_values(source, distractor) for _, distractor in roles]
        items: list[TruthItem] = []
        for template in pattern.templates:
            for number, variation in enumerate(template.variations(), start=1):
                for (role, _), role_values in zip(roles, values):
                    items.append(
                        TruthItem(
                            item_id=make_item_id(pattern_id, group_id, len(items)),
                            group_id=group_id,
                            pattern_id=pattern_id,
                            pattern=PATTERN_NAMES[pattern_id],
                            template_id=f"{template.template_id}-{number}",
                            negation_type=template.negation_type,
                            semantic_type=template.semantic_type,
                            syntactic_scope=template.syntactic_scope,
                            kind=role,
                            is_distractor=role != "Input",
                            label=template.labels[role] == "T",
                            sentence=fill(variation, role_values),
                        )
                    )
        return TindGroup(group_id, pattern_id, PATTERN_NAMES[pattern_id], source, tuple(distractors), items)

    def realise_header(self, group: TindGroup) -> TindGroup:
        """Re-instantiate a group from its header alone (its sentences are ignored)."""
        return self.realise(group.pattern_id, group.group_id, group.source, group.distractors)


def replaced_element(source: SourceTriple, distractor: DistractorRef) -> int:
    """1-based number of the source synset a distractor replaces (see the module doc)."""
    if distractor.label.startswith("Distractor-"):
        return int(distractor.label.rsplit("-", 1)[1])
    for number, synset in enumerate(source.synsets, start=1):
        if synset.pos == distractor.synsets[0].pos:
            return number
    return 1
