"""English morphology for template slots: noun plurals, -ing forms, indefinite articles.

Forms come from general spelling rules plus WordNet's own exception lists (``noun.exc``, ``verb.exc``);
nothing is looked up per word in the TIND data. Multi-word expressions inflect their head: the last word
of a noun compound (``guinea pig`` -> ``guinea pigs``), the first word of a phrasal verb (``give up`` ->
``giving up``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

VOWELS = "aeiou"

#: Words spelled with a vowel letter but read with a consonant sound (``a unicorn``, ``a one-off``).
_CONSONANT_SOUND = re.compile(r"^(uni|use|usu|uti|ura|ure|uri|uro|eu|ewe|one|once|ubiq|ufo|uk)", re.IGNORECASE)
#: Words spelled with a consonant letter but read with a vowel sound (``an hour``, ``an honest``).
_VOWEL_SOUND = re.compile(r"^(hour|honest|honor|honour|heir|herb(?!al))", re.IGNORECASE)
#: Single letters and acronyms read letter by letter whose name starts with a vowel sound (``an MBA``).
_VOWEL_LETTER_NAMES = set("AEFHILMNORSX")


def indefinite_article(phrase: str) -> str:
    """``a`` or ``an`` for ``phrase`` by its first sound (spelling rules with common exceptions)."""
    word = phrase.split(" ", 1)[0].split("-", 1)[0]
    if not word:
        return "a"
    if word.isupper() and (len(word) > 1 or phrase[1:2] in ("-", "")):  # acronym or letter read by its name
        return "an" if word[0] in _VOWEL_LETTER_NAMES else "a"
    if _VOWEL_SOUND.match(word):
        return "an"
    if _CONSONANT_SOUND.match(word):
        return "a"
    return "an" if word[0].lower() in VOWELS else "a"


def with_article(phrase: str) -> str:
    """``phrase`` preceded by its indefinite article (``an apple``)."""
    return f"{indefinite_article(phrase)} {phrase}"


def _plural_of_word(word: str, exceptions: Mapping[str, list[str]]) -> str:
    forms = exceptions.get(word.lower())
    if forms:
        return forms[0]
    lower = word.lower()
    if lower.endswith(("s", "x", "z", "ch", "sh")):
        return word + "es"
    if lower.endswith("y") and len(lower) > 1 and lower[-2] not in VOWELS:
        return word[:-1] + "ies"
    return word + "s"


def plural(noun: str, exceptions: Mapping[str, list[str]]) -> str:
    """Plural of a noun or noun compound; ``exceptions`` is ``noun.exc`` as ``base -> inflected forms``."""
    whole = exceptions.get(noun.lower().replace(" ", "_"))
    if whole:
        return whole[0].replace("_", " ")
    head_start = max(noun.rfind(" "), noun.rfind("-")) + 1
    return noun[:head_start] + _plural_of_word(noun[head_start:], exceptions)


def _doubles_final_consonant(verb: str) -> bool:
    """Short stressed CVC verbs double their last consonant (``run`` -> ``running``)."""
    lower = verb.lower()
    if len(lower) < 3 or lower[-1] in VOWELS + "wxy":
        return False
    if lower[-2] not in VOWELS or lower[-3] in VOWELS:
        return False
    return sum(1 for letter in lower if letter in VOWELS) == 1


def ing_form(verb: str, exceptions: Mapping[str, list[str]]) -> str:
    """Present participle of a verb or phrasal verb; ``exceptions`` is ``verb.exc`` as ``base -> forms``.

    An irregular ``-ing`` form listed in ``verb.exc`` (``lie -> lying``) wins; otherwise spelling rules:
    ``ie -> ying``, silent ``e`` dropped (but ``ee``, ``ye``, ``oe`` kept), CVC doubling for one-syllable verbs.
    """
    head, space, rest = verb.partition(" ")
    for form in exceptions.get(head.lower(), []):
        if form.endswith("ing"):
            return form + space + rest
    lower = head.lower()
    if lower.endswith("ie"):
        stem = head[:-2] + "y"
    elif lower.endswith("e") and not lower.endswith(("ee", "ye", "oe")) and len(lower) > 2:
        stem = head[:-1]
    elif _doubles_final_consonant(head):
        stem = head + head[-1]
    else:
        stem = head
    return stem + "ing" + space + rest
