"""The TIND templates: loading the per-pattern data files and expanding templates into variations.

Each pattern has one JSON file ``templates/pNN.json`` in this package. A template's ``text`` is an English
sentence with

- slots in braces, filled per group: ``{w1}`` word of the group's first element, ``{a_w1}`` the same with its
  indefinite article, ``{pl1}`` its plural, ``{a_pl1}`` the plural behind an article chosen for the plural
  (the authors' member-meronymy templates say "members of an electorates"), ``{ing1}`` its -ing form,
  ``{g1}`` the definition (gloss) of its synset; ``2`` instead of ``1`` for the second element;
- optional parts ``(...)``: first the variation with the part, then without it;
- alternatives ``[a | b]``: in the order written.

Variations are numbered 1, 2, ... in the order of the product of all choices, the leftmost choice varying
slowest (``(commonly) [stands for | refers to]`` gives ``commonly stands for``, ``commonly refers to``,
``stands for``, ``refers to``). A sentence starts with a capital letter; everything else is as written.
Each template also records its negation annotation and the label of each role (``Input``, ``Distractor``,
``Distractor-1``, ``Distractor-2``), so that deviations from the paper's truth table are visible in the data.
"""

from __future__ import annotations

import itertools
import json
import re
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources

from negkit.errors import InputFormatError

_SLOT = re.compile(r"\{([a-z_]+[12])\}")
_CHOICE = re.compile(r"\(([^()\[\]]*)\)|\[([^()\[\]]*)\]")


@dataclass(frozen=True)
class Template:
    """One template of a pattern."""

    template_id: int
    text: str
    negation_type: str
    semantic_type: str
    syntactic_scope: str
    labels: dict[str, str]  # role -> "T" / "F"

    @property
    def slots(self) -> tuple[str, ...]:
        """Slot names the template fills, in order of appearance."""
        return tuple(dict.fromkeys(_SLOT.findall(self.text)))

    def variations(self) -> list[str]:
        """The expanded variation texts (slots still in braces), in variation-number order."""
        return expand(self.text)


@dataclass(frozen=True)
class PatternTemplates:
    """All templates of one pattern, in file order."""

    pattern_id: int
    name: str
    relation: str
    roles: tuple[str, ...]
    templates: tuple[Template, ...]


@lru_cache(maxsize=4096)
def _expand_cached(text: str) -> tuple[str, ...]:
    return tuple(_expand(text))


def expand(text: str) -> list[str]:
    """All variations of a template text, normalised for spacing (``"a (b) c"`` -> ``["a b c", "a c"]``)."""
    return list(_expand_cached(text))


def _expand(text: str) -> list[str]:
    """All variations of a template text, normalised for spacing (``"a (b) c"`` -> ``["a b c", "a c"]``)."""
    literals: list[str] = []
    choices: list[list[str]] = []
    position = 0
    for match in _CHOICE.finditer(text):
        literals.append(text[position : match.start()])
        if match.group(1) is not None:
            choices.append([match.group(1), ""])
        else:
            choices.append([part.strip() for part in match.group(2).split("|")])
        position = match.end()
    literals.append(text[position:])
    expanded = []
    for picked in itertools.product(*choices):
        pieces = [literals[0]]
        for choice, literal in zip(picked, literals[1:]):
            pieces += [choice, literal]
        sentence = re.sub(r"\s+", " ", "".join(pieces)).strip()
        expanded.append(re.sub(r" ([.,])", r"\1", sentence))
    return expanded


@lru_cache(maxsize=8192)
def _pieces(variation: str) -> tuple[str, ...]:
    """A variation split into literal text (even positions) and slot names (odd positions)."""
    return tuple(_SLOT.split(variation))


def fill(variation: str, values: dict[str, str]) -> str:
    """Fill the slots of one variation and capitalise the sentence's first letter."""
    pieces = _pieces(variation)
    sentence = "".join(values[piece] if index % 2 else piece for index, piece in enumerate(pieces))
    return sentence[:1].upper() + sentence[1:]


@cache
def load_pattern(pattern_id: int) -> PatternTemplates:
    """The templates of one pattern (1-11), from the package data."""
    name = f"p{pattern_id:02d}.json"
    source = resources.files("negkit.studies.tind.generator").joinpath("templates").joinpath(name)
    try:
        data = json.loads(source.read_text(encoding="utf-8"))
        templates = tuple(
            Template(
                template_id=int(entry["id"]),
                text=entry["text"],
                negation_type=entry["negation_type"],
                semantic_type=entry["semantic_type"],
                syntactic_scope=entry["syntactic_scope"],
                labels=dict(entry["labels"]),
            )
            for entry in data["templates"]
        )
        return PatternTemplates(
            pattern_id=int(data["pattern_id"]),
            name=data["pattern"],
            relation=data["relation"],
            roles=tuple(data["roles"]),
            templates=templates,
        )
    except (KeyError, TypeError, ValueError) as error:
        raise InputFormatError(name, None, f"malformed template file: {error}") from error
