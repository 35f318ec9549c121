"""Realisation: from a group's header (WordNet triple + distractors) to its sentences, exactly as the raw files.

A header names the *elements* of the group (``Source: REL(ID lemma_sense,ID lemma_sense)``) and its
distractors. A distractor is either a word (``whale [02062744-n,...]``: the word replaces an element's word
slots) or a synset (``08388074-n [(few,1)]``: its definition replaces an element's gloss slot).
``Distractor-1`` replaces the first element, ``Distractor-2`` the second; a single ``Distractor`` replaces
the first element with its part of speech (the noun in ``agent(verb, noun)``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

from negkit.errors import InputFormatError
from negkit.generate.morphology import ing_form, plural, with_article
from negkit.generate.templates import fill, load_pattern
from negkit.generate.wordnet import WordNet

_SOURCE = re.compile(r"^(\w+)\((.*)\)$")
_SOURCE_ELEMENT = re.compile(r"(\d{8}-[nvasr]) (.+?)_(\d+)(?=,\d{8}-[nvasr] |$)")
_SYNSET_DISTRACTOR = re.compile(r"^(\d{8}-[nvasr]) \[(.*)\]$")
_WORD_DISTRACTOR = re.compile(r"^(.+?) \[((?:\d{8}-[nvasr],?)*)\]$")
_SENSE = re.compile(r"\((.+?),(\d+)\)")

#: Width of the role column in the raw files (``Input`` is padded to the width of ``Distractor``).
ROLE_WIDTH = len("Distractor")


@dataclass(frozen=True)
class Element:
    """One synset of a group's WordNet triple, with the word that names it."""

    synset_id: str
    word: str  # lemma as written in WordNet, underscores as spaces
    sense: int

    @property
    def pos(self) -> str:
        return self.synset_id[-1]

    def header_text(self) -> str:
        return f"{self.synset_id} {self.word.replace(' ', '_')}_{self.sense}"


@dataclass(frozen=True)
class Distractor:
    """A distractor: a word with all its synsets of that POS, or a synset with its (lemma, sense) pairs."""

    word: str | None
    synset_ids: tuple[str, ...]
    senses: tuple[tuple[str, int], ...] = ()

    @property
    def is_synset(self) -> bool:
        return self.word is None

    @property
    def pos(self) -> str:
        return self.synset_ids[0][-1]

    def header_text(self) -> str:
        if self.word is None:
            pairs = ",".join(f"({lemma},{sense})" for lemma, sense in self.senses)
            return f"{self.synset_ids[0]} [{pairs}]"
        return f"{self.word} [{','.join(self.synset_ids)}]"


@dataclass(frozen=True)
class GroupSpec:
    """Everything a group's sentences are made from: pattern, relation, elements, distractors by role."""

    pattern_id: int
    relation: str
    elements: tuple[Element, ...]
    distractors: tuple[tuple[str, Distractor], ...]  # (role, distractor) in header order

    def source_text(self) -> str:
        return f"{self.relation}({','.join(element.header_text() for element in self.elements)})"

    def header_fields(self) -> list[str]:
        """The header's TAB-separated fields after ``% Test NNNNNN``."""
        fields = [f"Source: {self.source_text()}"]
        fields += [f"{role}: {distractor.header_text()}" for role, distractor in self.distractors]
        return fields


@dataclass(frozen=True)
class RealisedSentence:
    """One sentence line of a group."""

    variation_id: str  # "3-1"
    negation_type: str
    semantic_type: str
    syntactic_scope: str
    role: str  # "Input", "Distractor", "Distractor-1", "Distractor-2"
    label: bool
    text: str

    def raw_line(self) -> str:
        """The line as written in the raw files (7 TAB-separated fields)."""
        return "\t".join([
            self.variation_id, self.negation_type, self.semantic_type, self.syntactic_scope,
            self.role.ljust(ROLE_WIDTH), "T" if self.label else "F", self.text,
        ])


def parse_source(text: str, where: tuple[str, int | None] = ("<header>", None)) -> tuple[str, tuple[Element, ...]]:
    """``REL(ID lemma_sense,...)`` -> relation and elements."""
    match = _SOURCE.match(text.strip())
    elements = _SOURCE_ELEMENT.findall(match.group(2)) if match else []
    if not match or not elements:
        raise InputFormatError(where[0], where[1], f"cannot read source {text!r}")
    return match.group(1), tuple(Element(sid, lemma.replace("_", " "), int(sense)) for sid, lemma, sense in elements)


def parse_distractor(text: str, where: tuple[str, int | None] = ("<header>", None)) -> Distractor:
    """``word [ID,...]`` or ``ID [(lemma,sense),...]`` -> :class:`Distractor`."""
    text = text.strip()
    synset = _SYNSET_DISTRACTOR.match(text)
    if synset:
        senses = tuple((lemma, int(sense)) for lemma, sense in _SENSE.findall(synset.group(2)))
        return Distractor(None, (synset.group(1),), senses)
    word = _WORD_DISTRACTOR.match(text)
    if word and word.group(2):
        return Distractor(word.group(1), tuple(word.group(2).split(",")))
    raise InputFormatError(where[0], where[1], f"cannot read distractor {text!r}")


def parse_header_fields(pattern_id: int, fields: list[str], where: tuple[str, int | None]) -> GroupSpec:
    """Build a :class:`GroupSpec` from the header fields after ``% Test NNNNNN``."""
    relation, elements, distractors = "", (), []
    for field in fields:
        key, separator, value = field.partition(": ")
        if not separator:
            raise InputFormatError(where[0], where[1], f"header field without ': ': {field!r}")
        if key == "Source":
            relation, elements = parse_source(value, where)
        elif key.startswith("Distractor"):
            distractors.append((key, parse_distractor(value, where)))
        else:
            raise InputFormatError(where[0], where[1], f"unknown header field {key!r}")
    if not elements:
        raise InputFormatError(where[0], where[1], "header has no Source")
    return GroupSpec(pattern_id, relation, elements, tuple(distractors))


class Realiser:
    """Fills pattern templates from WordNet; one instance caches WordNet lookups for many groups."""

    def __init__(self, wordnet: WordNet | None = None) -> None:
        self.wordnet = wordnet or WordNet()

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
        plural_form = plural(word, self._noun_exceptions)
        return {
            f"w{number}": word,
            f"a_w{number}": with_article(word),
            f"pl{number}": plural_form,
            f"a_pl{number}": with_article(plural_form),
            f"ing{number}": ing_form(word, self._verb_exceptions),
        }

    def slot_values(self, spec: GroupSpec, role: str) -> dict[str, str]:
        """All slot values of one role (``Input`` or a distractor role) of a group."""
        values: dict[str, str] = {}
        for number, element in enumerate(spec.elements, start=1):
            values.update(self.word_slots(element.word, number))
            values[f"g{number}"] = self.gloss(element.synset_id)
        if role == "Input":
            return values
        distractor = dict(spec.distractors)[role]
        number = replaced_element(spec, role, distractor)
        if distractor.is_synset:
            values[f"g{number}"] = self.gloss(distractor.synset_ids[0])
        else:
            values.update(self.word_slots(distractor.word or "", number))
        return values

    def realise(self, spec: GroupSpec) -> list[RealisedSentence]:
        """The group's sentences in raw-file order: template, variation, then role."""
        pattern = load_pattern(spec.pattern_id)
        roles = ["Input"] + [role for role, _ in spec.distractors]
        values = {role: self.slot_values(spec, role) for role in roles}
        sentences = []
        for template in pattern.templates:
            for number, variation in enumerate(template.variations(), start=1):
                for role in roles:
                    sentences.append(RealisedSentence(
                        variation_id=f"{template.template_id}-{number}",
                        negation_type=template.negation_type,
                        semantic_type=template.semantic_type,
                        syntactic_scope=template.syntactic_scope,
                        role=role,
                        label=template.labels[role] == "T",
                        text=fill(variation, values[role]),
                    ))
        return sentences


def replaced_element(spec: GroupSpec, role: str, distractor: Distractor) -> int:
    """1-based number of the element a distractor role replaces (see the module doc)."""
    if role.startswith("Distractor-"):
        return int(role.rsplit("-", 1)[1])
    for number, element in enumerate(spec.elements, start=1):
        if element.pos == distractor.pos:
            return number
    return 1
